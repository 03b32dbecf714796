#!/usr/bin/python3
"""Apache Avro's Python library (Debian's python3-avro) on the Bigtable files
of widecolumn_fdw's TAP tests: the reader and writer the extension's are
checked against.

  avro_tool.py dump FILE          the schema, then each cell version as
                                  key|family|qualifier|timestamp|value (bytes
                                  in hex, rows and cells in the file's order),
                                  then the number of rows
  avro_tool.py write FILE CODEC   a file of the template's schema with rows
                                  made here; prints its versions as dump does
  avro_tool.py bad FILE KIND      a file the extension must refuse: KIND is
                                  longkey, longqualifier, family, timestamp or
                                  schema; its bad row is the third
"""
import json
import sys

import avro.datafile
import avro.io
import avro.schema

# The schema of the "Cloud Bigtable to Avro" / "Avro to Cloud Bigtable"
# Dataflow templates (bigtable.avsc), docs and all.
TEMPLATE = {
    "name": "BigtableRow", "type": "record",
    "namespace": "com.google.cloud.teleport.bigtable",
    "doc": "Avro schema for Bigtable.",
    "fields": [
        {"name": "key", "type": "bytes"},
        {"name": "cells", "type": {"type": "array", "items": {
            "name": "BigtableCell", "type": "record",
            "fields": [
                {"name": "family", "type": "string"},
                {"name": "qualifier", "type": "bytes"},
                {"name": "timestamp", "type": "long",
                 "doc": "Timestamp in microseconds."},
                {"name": "value", "type": "bytes"}]}}}]}


def line(key, cell):
    return "%s|%s|%s|%d|%s" % (key.hex(), cell["family"], cell["qualifier"].hex(),
                               cell["timestamp"], cell["value"].hex())


def type_name(field):
    """A field's type, written "long" or {"type": "long"}."""
    t = field["type"]
    return t if isinstance(t, str) else t["type"]


def dump(path):
    with avro.datafile.DataFileReader(open(path, "rb"), avro.io.DatumReader()) as r:
        schema = json.loads(r.get_meta("avro.schema").decode())
        cell = schema["fields"][1]["type"]["items"]
        print("schema %s.%s %s %s" % (
            schema["namespace"], schema["name"],
            ",".join("%s:%s" % (f["name"], type_name(f)) for f in schema["fields"]),
            ",".join("%s:%s" % (f["name"], type_name(f)) for f in cell["fields"])))
        rows = 0
        for row in r:
            rows += 1
            for c in row["cells"]:
                print(line(row["key"], c))
        print("rows %d" % rows)


def rows_made():
    """Rows as another writer might order them: cells not in Bigtable's order."""
    rows = []
    for i in range(1, 301):
        key = b"py%04d" % i
        cells = []
        for fam in ("zeta", "alpha"):
            for q in (b"q\x00bin", b"", b"name"):
                for v in (3, 1, 2):
                    cells.append({"family": fam, "qualifier": q,
                                  "timestamp": 1600000000000000 + i * 1000 + v,
                                  "value": b"%s/%s/%d" % (key, q, v) + bytes([v, 0, 255])})
        rows.append({"key": key, "cells": cells})
    rows.append({"key": b"\x00\xffbinary key", "cells": [
        {"family": "alpha", "qualifier": b"q", "timestamp": 0, "value": b""}]})
    return rows


def write(path, codec):
    schema = avro.schema.parse(json.dumps(TEMPLATE))
    with avro.datafile.DataFileWriter(open(path, "wb"), avro.io.DatumWriter(), schema,
                                      codec=codec) as w:
        for row in rows_made():
            w.append(row)
            for c in row["cells"]:
                print(line(row["key"], c))


def bad(path, kind):
    doc = json.loads(json.dumps(TEMPLATE))
    ok = {"family": "f", "qualifier": b"q", "timestamp": 1, "value": b"v"}
    third = dict(ok)
    key = b"k3"
    if kind == "longkey":
        key = b"k" * 4097
    elif kind == "longqualifier":
        third["qualifier"] = b"q" * (16 * 1024 + 1)
    elif kind == "family":
        third["family"] = "cf:x"
    elif kind == "timestamp":
        third["timestamp"] = -5
    elif kind == "schema":
        doc["fields"][1]["type"]["items"]["fields"][2]["type"] = "int"
    elif kind in ("deflate", "snappy"):
        pass
    else:
        sys.exit("unknown kind " + kind)
    schema = avro.schema.parse(json.dumps(doc))
    with avro.datafile.DataFileWriter(open(path, "wb"), avro.io.DatumWriter(), schema,
                                      codec="snappy" if kind == "snappy" else "deflate") as w:
        w.append({"key": b"k1", "cells": [ok]})
        w.append({"key": b"k2", "cells": [ok, ok]})
        w.append({"key": key, "cells": [ok, third]})
        w.append({"key": b"k4", "cells": [ok]})
    if kind == "deflate":
        damage_first_block(path)
    elif kind == "snappy":
        damage_snappy_crc(path)


def varint_end(data, at):
    while data[at] & 0x80:
        at += 1
    return at + 1


def damage_first_block(path):
    """Make the first block's deflate data begin with a block of the reserved type."""
    data = bytearray(open(path, "rb").read())
    sync = bytes(data[-16:])
    at = data.index(sync) + 16             # the header's sync marker ends it
    at = varint_end(data, varint_end(data, at))  # the block's row count and length
    data[at] = 0x07                        # BFINAL 1, BTYPE 11: no such type
    open(path, "wb").write(data)


def damage_snappy_crc(path):
    """Change the last byte of the first block's CRC-32 (after its snappy data)."""
    data = bytearray(open(path, "rb").read())
    sync = bytes(data[-16:])
    at = data.index(sync) + 16
    at = varint_end(data, at)              # the block's row count
    n, shift, start = 0, 0, at             # its length, a zigzag varint
    while True:
        b = data[at]
        n |= (b & 0x7F) << shift
        shift += 7
        at += 1
        if not b & 0x80:
            break
    n = (n >> 1) ^ -(n & 1)
    data[at + n - 1] ^= 0xFF
    open(path, "wb").write(data)


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(sys.argv[2])
    elif sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3])
    else:
        bad(sys.argv[2], sys.argv[3])
