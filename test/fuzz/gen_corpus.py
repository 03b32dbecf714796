#!/usr/bin/env python3
"""Write the seed corpora of test/fuzz (checked in; rerun after a format change).

    python3 test/fuzz/gen_corpus.py [DIR]      (default: test/fuzz/corpus)

Seeds are small hand-made inputs that are valid (and a few that are just
invalid) by the layouts in src/common/keycodec.h and src/common/wire.h, built the way the
backend builds them (client.c, txn.c, option.c): little-endian u32 lengths,
components escaped as 0x00 -> 0x00 0xFF and ended by 0x00 0x01.  Existing
files named seed-* are replaced; files libFuzzer added by -merge are kept.
"""
import os
import struct
import sys

# ---- src/common/keycodec.c, re-implemented from docs/format.md ----


def body(b):
    return b.replace(b"\x00", b"\x00\xff")


def esc(b):
    return body(b) + b"\x00\x01"


def ts(micros):
    return struct.pack(">Q", (~micros) & 0xFFFFFFFFFFFFFFFF)


def successor(k):
    k = bytearray(k)
    while k and k[-1] == 0xFF:
        k.pop()
    if not k:
        return b""  # open-ended
    k[-1] += 1
    return bytes(k)


# ---- src/common/wire.h ----
REQ_OPEN, REQ_SNAPSHOT, REQ_RELEASE, REQ_SCAN, REQ_NEXT, REQ_CLOSE = 1, 2, 3, 4, 5, 6
REQ_WRITE, REQ_COMMIT, REQ_ABORT, REQ_ESTIMATE = 7, 8, 9, 10
REQ_COUNT, REQ_COMPACT = 11, 12
REQ_SAMPLE, REQ_ROWS = 13, 14
REQ_STAT_WORKER, REQ_STAT_DATABASES = 19, 20
PRESENT, TOMBSTONE = 1, 0


def u8(v):
    return struct.pack("<B", v)


def u16(v):
    return struct.pack("<H", v)


def u32(v):
    return struct.pack("<I", v)


def u32be(v):
    return struct.pack(">I", v)


def u64(v):
    return struct.pack("<Q", v)


def s(b):
    return u32(len(b)) + b


def fq(family, qualifier):
    return esc(family) + esc(qualifier)


def row(table, rowkey, cells, deleted=False, read_version=None):
    """cells: (family, qualifier, value or None for a cell tombstone);
    read_version: the row was read at this version (WC_ROW_READ)"""
    flags = (1 if deleted else 0) | (2 if read_version is not None else 0)
    out = s(esc(table) + esc(rowkey)) + u8(flags)
    if read_version is not None:
        out += struct.pack("<Q", read_version)
    out += u32(len(cells))
    for f, q, v in cells:
        out += s(fq(f, q))
        if v is None:
            out += u8(TOMBSTONE) + s(b"")
        else:
            out += u8(PRESENT) + s(v)
    return out


def write(rows, db=0):
    return u8(REQ_WRITE) + u32(db) + b"".join(rows)


def scan(cols, ranges, reverse=False, limit=0, db=0, snap=0, scan_id=1, as_of=0, filters=()):
    flags = (1 if reverse else 0) | (0x10 if filters else 0)
    out = u8(REQ_SCAN) + u32(db) + u32(snap) + u32(scan_id) + u8(flags) + u64(limit) + u64(as_of)
    out += u16(len(cols)) + b"".join(s(fq(f, q)) for f, q in cols)
    out += u32(len(ranges)) + b"".join(s(a) + s(b) for a, b in ranges)
    if filters:
        # WcScanFilter: u16 column, u8 kind, u8 op, u64 value (native order, as wc_put_u64)
        out += u16(len(filters)) + b"".join(u16(c) + u8(k) + u8(o) + u64(v) for c, k, o, v in filters)
    return out


def point(table, key):
    start = esc(table) + esc(key)
    return (start, successor(start))


def prefix(table, p):
    start = esc(table) + body(p)
    return (start, successor(start))


def whole(table):
    start = esc(table)
    return (start, successor(start))


def keyseed(pieces, tail=b""):
    """fuzz_keycodec's layout: four length-prefixed pieces, then a tail."""
    out = b""
    for p in pieces:
        assert len(p) < 256
        out += u8(len(p)) + p
    return out + tail


def wire_seeds():
    weather = b"weather"
    k1 = b"us-west2#3698#2021-03-05-1204"
    m = b"measurements"
    seeds = {
        # writes, as txn.c sends them at COMMIT
        "write-insert": write([row(weather, k1, [
            (m, b"pressure", struct.pack(">q", 94558)),
            (m, b"temperature", struct.pack(">d", 9.6))])]),
        "write-delete": write([row(weather, k1, [], deleted=True)]),
        "write-delete-reinsert": write([row(weather, k1, [(m, b"pressure", struct.pack(">q", 1))], deleted=True)]),
        "write-cell-tombstone": write([row(weather, k1, [(m, b"temperature", None)])]),
        "write-update-null": write([row(b"t", b"k", [(b"cf", b"a", b"x"), (b"cf", b"b", None)])]),
        "write-zero-bytes": write([row(b"bin", b"\x00a\x00\x00", [(b"cf", b"\x00", b"\x00\x00\x01")])]),
        "write-empty-rowkey-qualifier": write([row(b"t", b"", [(b"cf", b"", b"")])]),
        "write-high-bytes": write([row(b"t", b"\xff\xff", [(b"cf", b"\xff", b"\xff")])]),
        "write-many-rows": write([row(b"devices", b"phone#4c410523#2020050%d" % i,
                                      [(b"stats", b"bytes", struct.pack(">q", i * 1000)),
                                       (b"cf", b"d", struct.pack(">i", i))]) for i in range(6)]
                                 + [row(b"devices", b"phone#4c410523#20200507", [], deleted=True)]),
        "write-empty": write([]),
        "write-other-db": write([row(b"t", b"k", [(b"cf", b"c", b"v")])], db=3),
        # writes the worker must refuse
        "write-bad-tag": u8(REQ_WRITE) + u32(0) + s(esc(b"t") + esc(b"k")) + u8(0) + u32(1)
        + s(fq(b"cf", b"c")) + u8(2) + s(b"v"),
        "write-tombstone-value": u8(REQ_WRITE) + u32(0) + s(esc(b"t") + esc(b"k")) + u8(0) + u32(1)
        + s(fq(b"cf", b"c")) + u8(TOMBSTONE) + s(b"v"),
        "write-read-row": write([row(weather, k1, [(m, b"pressure", None)], read_version=1700000000000000),
                                 row(weather, k1 + b"x", [], deleted=True, read_version=1)]),
        "write-read-truncated": u8(REQ_WRITE) + u32(0) + s(esc(b"t") + esc(b"k")) + u8(2) + u32(0),
        "write-flags-4": u8(REQ_WRITE) + u32(0) + s(esc(b"t") + esc(b"k")) + u8(4) + u32(0),
        "write-empty-family": u8(REQ_WRITE) + u32(0) + s(esc(b"t") + esc(b"k")) + u8(0) + u32(1)
        + s(esc(b"") + esc(b"q")) + u8(PRESENT) + s(b"v"),
        "write-one-component": u8(REQ_WRITE) + u32(0) + s(esc(b"t")) + u8(0) + u32(0),
        "write-three-components": u8(REQ_WRITE) + u32(0) + s(esc(b"t") + esc(b"k") + esc(b"x")) + u8(0) + u32(0),
        "write-truncated": write([row(weather, k1, [(m, b"pressure", struct.pack(">q", 94558))])])[:-3],
        "write-ncells-too-many": u8(REQ_WRITE) + u32(0) + s(esc(b"t") + esc(b"k")) + u8(0) + u32(1000),
        "write-bad-escape": u8(REQ_WRITE) + u32(0) + s(b"t\x00\x02" + esc(b"k")) + u8(0) + u32(0),
        # scans, as scan.c / client.c send them
        "scan-point": scan([(m, b"pressure"), (m, b"temperature")], [point(weather, k1)]),
        "scan-keys": scan([(b"cf", b"v")], [point(b"t", b"a"), point(b"t", b"b"), point(b"t", b"c")]),
        "scan-prefix": scan([(m, b"pressure")], [prefix(weather, b"us-west2#3698#")]),
        "scan-prefix-zero": scan([(b"cf", b"\x00")], [prefix(b"t", b"a\x00")]),
        "scan-full-reverse-limit": scan([(m, b"pressure")], [whole(weather)], reverse=True, limit=10),
        "scan-ranges": scan([(b"cf", b"a"), (b"cf", b"b")],
                            [(esc(b"t") + esc(b"a"), esc(b"t") + esc(b"c")),
                             (esc(b"t") + esc(b"m"), successor(esc(b"t")))], snap=7),
        "scan-no-columns": scan([], [whole(b"t")]),
        # temperature > 1000.0 (FLOAT8 = 5, GT = 5), pressure <> 0 (INT8 = 3, NE = 6)
        "scan-filters": scan([(m, b"pressure"), (m, b"temperature")], [whole(weather)],
                             filters=[(1, 5, 5, struct.unpack("<Q", struct.pack("<d", 1000.0))[0]),
                                      (0, 3, 6, 0)]),
        "scan-filters-bool-bytes": scan([(b"cf", b"active"), (b"cf", b"status")], [whole(b"t")],
                                        filters=[(0, 6, 3, 1), (1, 7, 3, 0xcbf29ce484222325)]),
        # pressure IN (94000, 94500) (INT8 = 3, IN = 7), status IN two hashes (BYTES = 7)
        "scan-filters-in": scan([(m, b"pressure"), (b"cf", b"status")], [whole(weather)],
                                filters=[(0, 3, 7, 94000), (0, 3, 7, 94500),
                                         (1, 7, 7, 0xcbf29ce484222325), (1, 7, 7, 0xaf63bd4c8601b7df)]),
        "scan-as-of": scan([(m, b"pressure")], [prefix(weather, b"us-west2#")], as_of=1614945840000000),
        "scan-no-ranges": scan([(b"cf", b"a")], []),
        "scan-open-end": scan([(b"cf", b"a")], [(esc(b"t") + esc(b"\xff"), b"")]),
        "scan-many-columns": scan([(b"cf", b"c%d" % i) for i in range(40)], [whole(b"wide")]),
        # scans the worker must refuse
        "scan-trailing": scan([(b"cf", b"a")], [whole(b"t")]) + b"\x00",
        "scan-bad-column": scan([], [])[:-6] + u16(1) + s(esc(b"cf")) + u32(0),
        "scan-too-many-columns": scan([], [])[:-6] + u16(1601) + u32(0),
        "scan-ranges-overflow": scan([], [])[:-4] + u32(0xFFFFFFFF),
        # the other requests
        "open": u8(REQ_OPEN) + s(b"leveldb") + s(b"/var/lib/postgresql/15/main/widecolumn_fdw/16384")
        + u16(4) + s(b"cache_mb") + s(b"64") + s(b"write_buffer_mb") + s(b"16")
        + s(b"bloom_bits") + s(b"10") + s(b"compression") + s(b"1"),
        "snapshot": u8(REQ_SNAPSHOT) + u32(0) + u32(7)
        + u32(740) + u32(745) + u32(0) + u32(2) + u32(741) + u32(743),
        "release": u8(REQ_RELEASE) + u32(7),
        "next": u8(REQ_NEXT) + u32(1),
        "close": u8(REQ_CLOSE) + u32(1),
        "commit": u8(REQ_COMMIT) + u32(0) + u8(1) + u64(744),
        "abort": u8(REQ_ABORT) + u32(0),
        "estimate": u8(REQ_ESTIMATE) + u32(0) + u32(2) + s(esc(b"t")) + s(successor(esc(b"t")))
        + s(esc(b"u") + esc(b"a")) + s(b""),
        "count": u8(REQ_COUNT) + u32(0) + s(esc(b"t")) + s(esc(b"cf")),
        "count-table": u8(REQ_COUNT) + u32(0) + s(esc(b"t")) + s(b""),
        "count-no-table": u8(REQ_COUNT) + u32(0) + s(b"") + s(b""),
        "compact": u8(REQ_COMPACT) + u32(0) + s(esc(b"t")),
        "compact-all": u8(REQ_COMPACT) + u32(0) + s(b""),
        "compact-two-parts": u8(REQ_COMPACT) + u32(0) + s(esc(b"t") + esc(b"k")),
        "sample": u8(REQ_SAMPLE) + u32(0) + s(esc(b"t")),
        "sample-two-parts": u8(REQ_SAMPLE) + u32(0) + s(esc(b"t") + esc(b"k")),
        "rows": u8(REQ_ROWS) + u32(0) + u32(4096) + u32(1) + s(esc(b"t")) + s(successor(esc(b"t"))),
        "answer-sample": u8(64) + u64(1000) + u32(2) + s(b"k1") + u64(10) + s(b"k2") + u64(500),
        "answer-rows": u8(64) + u64(12) + u8(1) + u64(300) + u64(300),
        "unknown-type-write-payload": u8(0) + row(b"t", b"k", [(b"cf", b"c", b"v")]),
        "stat-worker": u8(REQ_STAT_WORKER),
        "stat-databases": u8(REQ_STAT_DATABASES),
        # started, elapsed, busy, commits, large, fsyncs, waits; 2 types
        "answer-stat-worker": u8(64) + b"".join(u64(v) for v in (1, 2, 1, 3, 0, 3, 0)) + u32(2)
        + u8(4) + b"".join(u64(v) for v in (10, 100, 15, 20, 1))
        + u8(8) + b"".join(u64(v) for v in (3, 900, 400, 400, 3)),
        "answer-stat-databases": u8(64) + u32(1) + s(b"widecolumn_fdw/1-2") + u8(1)
        + b"".join(u32(f) + u64(0) for f in (2, 1, 0, 0, 0, 0, 0)) + u64(1) + u64(0) + u64(0) + u64(0)
        + s(b"Compactions\nLevel  Files Size(MB) Time(sec) Read(MB) Write(MB)\n  0 2 0 0 0 0\n"),
    }
    return seeds


def keycodec_seeds():
    t1 = struct.pack("<QQ", 1614945840000000, 1614945840000001)
    seeds = {
        "empty": b"",
        "four-empty": keyseed([b"", b"", b"", b""]),
        "order-a": keyseed([b"a", b"a\x00", b"ab", b"b"], t1),
        "order-zero": keyseed([b"\x00", b"", b"\x00\x00", b"\x00\x01"], t1),
        "order-high": keyseed([b"\xff", b"\xff\xff", b"\xfe\xff", b"\xff\x00"]),
        "successor-ff": keyseed([b"a\xff\xff", b"\x00", b"a\xff\xff\x00", b"b"]),
        "successor-all-ff": keyseed([b"\xff\xff\xff", b"x", b"\xff\xff\xff\xff", b"\xff"]),
        "prefix-rowkey": keyseed([b"phone#4c410523#", b"20200501", b"phone#4c410523", b"devices"],
                                 b"phone#4c410523#20200502"),
        "prefix-zero": keyseed([b"a\x00", b"b", b"a", b"t"], b"a\x00\x00"),
        "same-table": keyseed([b"weather", b"us-west2#3698#2021-03-05-1204", b"weather", b"measurements"],
                              t1),
        "equal-pieces": keyseed([b"k", b"k", b"k", b"k"], struct.pack("<QQ", 5, 5)),
        "ts-extremes": keyseed([b"t", b"r", b"f", b"q"], struct.pack("<QQ", 0, 0xFFFFFFFFFFFFFFFF)),
        # whole inputs in the stored layout, for the arbitrary-bytes decoder
        "escaped-a": esc(b"a"),
        "escaped-zero": esc(b"a\x00b"),
        "escaped-stream": esc(b"weather") + esc(b"k1") + esc(b"cf") + esc(b"q") + ts(1614945840000000),
        "clock-key": b"\x00\x00clock",
        "row-tombstone": esc(b"t") + esc(b"k") + b"\x00\x01\x00\x01" + ts(1),
        "malformed-00-02": b"a\x00\x02",
        "malformed-trailing-00": b"abc\x00",
        "malformed-cut-escape": b"a\x00\xff\x00",
        "no-terminator": b"abcdef",
    }
    return seeds


# ---- test/fuzz/fuzz_values.c: the first byte picks the decoder ----
# Indexes into its columns[] and layouts[] tables (keep in step with them).
VALUE_COLUMNS = ["bool", "int2", "int4", "int8", "float4", "float8", "date",
                 "timestamp", "timestamptz", "uuid", "text", "varchar", "bytea",
                 "numeric", "numeric(8,2)", "json", "jsonb", "interval", "inet",
                 "cidr", "macaddr", "time", "timetz", "money", "point", "box",
                 "path", "polygon", "varbit", "int4[]", "text[]", "float8[]",
                 "int4range", "tsvector", "tsquery", "oid", "char", "name"]
KEY_LAYOUTS = 8
TEXT_ROWKEY = len(VALUE_COLUMNS) + KEY_LAYOUTS


def col(name):
    return u8(VALUE_COLUMNS.index(name))


def layout(n):
    return u8(len(VALUE_COLUMNS) + n)


def reverse_digits(d):
    return bytes(ord("9") - c + ord("0") for c in d)


def values_seeds():
    unix_2021 = 1614945840000000  # 2021-03-05 12:04:00 UTC, in microseconds
    int4_array = (u32be(1) + u32be(0) + u32be(23) + u32be(3) + u32be(1)
                  + b"".join(u32be(4) + u32be(v) for v in (1, 2, 3)))
    return {
        "bool": col("bool") + b"\x01",
        "int2": col("int2") + struct.pack(">h", -2),
        "int4": col("int4") + struct.pack(">i", 94558),
        "int8": col("int8") + struct.pack(">q", -1),
        "float4": col("float4") + struct.pack(">f", 1.5),
        "float8": col("float8") + struct.pack(">d", -76.5),
        "date": col("date") + struct.pack(">i", 18691),
        "timestamp": col("timestamp") + struct.pack(">q", unix_2021),
        "timestamptz-infinity": col("timestamptz") + struct.pack(">q", 2**63 - 1),
        "uuid": col("uuid") + bytes(range(16)),
        "text": col("text") + "Grüße".encode(),
        "bytea": col("bytea") + b"\x00\xff",
        "numeric": col("numeric") + b"-12.50",
        "numeric-typmod": col("numeric(8,2)") + b"123456.789",
        "json": col("json") + b'{"a": [1, 2]}',
        "jsonb": col("jsonb") + b'{"b": null, "a": 1.0}',
        "interval": col("interval") + struct.pack(">qii", 3600000000, 2, 1),
        "inet": col("inet") + bytes([2, 24, 0, 4, 192, 168, 1, 0]),
        "int4-array": col("int4[]") + int4_array,
        "key-text-int-reversed-ts": layout(0) + b"phone#0000004242#" + reverse_digits(b"20200501123456000001"),
        "key-negative-ints": layout(1) + b"-99998#-9223372036854775807",
        "key-date-ts-varchar": layout(2) + reverse_digits(b"20211231") + b"|20000229000000000000|x",
        "key-text-text-date-int": layout(3) + b"a#b#" + reverse_digits(b"20210305") + b"#0000000000000000001",
        "key-int8": layout(4) + b"9223372036854775807",
        "key-ts-reversed": layout(5) + reverse_digits(b"00010101000000000000"),
        # found by the fuzzer: year 0000 was read as 1 BC, which no key is
        "key-ts-year-0": layout(5) + b"99998994895099988498",
        "key-format-balloon": layout(6) + b"us-west2#3698#2021-03-05-1204",
        "key-format-reversed-month-ms": layout(7) + reverse_digits(b"2024") + b"-" + reverse_digits(b"01") + b"-"
        + reverse_digits(b"01") + b"T" + reverse_digits(b"00") + b":" + reverse_digits(b"00") + b":"
        + reverse_digits(b"07") + b"." + reverse_digits(b"500") + b"#202402#1423523569918",
        "rowkey-text": u8(TEXT_ROWKEY) + b"us-west2#3698#2021-03-05-1200",
    }


# ---- test/fuzz/fuzz_readrows.c: the first byte chooses the reading ----


def readrows_seeds():
    def chunk(flags, key=b"", fam=b"", qual=b"", value=b""):
        out = bytes([flags])
        if flags & 0x01:
            out += bytes([len(key)]) + key
        if flags & 0x02:
            out += bytes([len(fam)]) + fam
        if flags & 0x04:
            out += bytes([len(qual)]) + qual
        return out + bytes([len(value)]) + value
    return {
        # a recipe: 3 rows, cells, splits and a reset where its bytes say
        "valid": bytes([1, 3, 2, 1, 5, 0, 7, 9, 3, 65, 66, 67, 1, 0, 1, 2, 9, 3, 4, 1, 2, 3, 4, 0, 1]),
        "valid-reversed": bytes([3, 2, 1, 0, 1, 2, 1, 2, 3, 0, 1, 1, 2, 2, 9]),
        # arbitrary chunks: a whole row in one; a reset and the row again
        "arbitrary": bytes([0]) + chunk(0x47, b"r1", b"f", b"q", b"xyz"),
        "arbitrary-reset": bytes([0]) + chunk(0x07, b"r1", b"f", b"q", b"a") + chunk(0x20)
        + chunk(0x47, b"r1", b"f", b"q", b"b"),
    }


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    for target, seeds in (("wire", wire_seeds()), ("keycodec", keycodec_seeds()),
                          ("values", values_seeds()), ("readrows", readrows_seeds())):
        d = os.path.join(top, target)
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            if f.startswith("seed-"):
                os.unlink(os.path.join(d, f))
        for name, data in sorted(seeds.items()):
            with open(os.path.join(d, "seed-" + name), "wb") as fh:
                fh.write(data)
        print("%s: %d seeds in %s" % (target, len(seeds), d))


if __name__ == "__main__":
    main()
