# The Avro workload of test/bench/run.sh (sourced by it; BENCH_ONLY=avro
# runs it alone): widecolumn.export_avro and import_avro of the SCALE
# balloon rows against COPY TO and COPY FROM of the same rows in a native
# table, widecolumn.backup of their server and restore into a new one,
# and COPY FROM into a foreign table (the same 4 versions a row,
# at the commit's time), each timed by psql (COMMIT included) after a
# compaction of the LevelDB database, a CHECKPOINT and a sync, and the
# files' sizes.  The imported table must hold every version
# exported, or the bench stops.  Inside the cluster; uses run.sh's sql,
# put, foreign_balloon, native_balloon and balloon_rows.

# The statements on stdin, under \timing; their total ms in $ms.
avro_timed() {
	# LevelDB compacts what the step before wrote in the background, on
	# one of the two CPUs: the step after would pay for it (COPY into a
	# foreign table took 2.2 s before the imports and 3.2 s after them)
	sql -c "SELECT widecolumn.compact('wc_avro')" >/dev/null
	sql -c CHECKPOINT
	sync
	{ printf '%s\n' '\timing on'; cat; } | sql >"$OUT/avro.$1.log" 2>&1 || {
		cat "$OUT/avro.$1.log" >&2
		say "avro: $1 failed"
		exit 1
	}
	ms=$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$OUT/avro.$1.log" | awk '{ s += $1 } END { printf "%.3f", s }')
	put "avro_ms.$1" "$ms"
}

avro_workload() {
	say "workload avro: export and import of $SCALE rows against COPY"
	sql -c "COPY ($(balloon_rows)) TO '$WORK/avro_rows.tsv'"
	sql <<-SQL
	$(foreign_balloon avro_src wc_avro)
	$(native_balloon avro_native)
	$(native_balloon avro_native_copy)
	CREATE FOREIGN TABLE avro_dst (rowkey text COLLATE "C", family text COLLATE "C",
	    qualifier text COLLATE "C", ts timestamptz, value bytea)
	    SERVER wc_avro OPTIONS (table 'weather_restored', layout 'cells');
	CREATE FOREIGN TABLE avro_dst_null (rowkey text COLLATE "C", family text COLLATE "C",
	    qualifier text COLLATE "C", ts timestamptz, value bytea)
	    SERVER wc_avro OPTIONS (table 'weather_restored_null', layout 'cells');
	$(foreign_balloon avro_copy wc_avro | sed -e '/CREATE SERVER/d' -e "s/table 'weather'/table 'weather_copied'/")
	CREATE FOREIGN TABLE avro_src_cells (rowkey text COLLATE "C", family text COLLATE "C",
	    qualifier text COLLATE "C", ts timestamptz, value bytea)
	    SERVER wc_avro OPTIONS (table 'weather', layout 'cells');
	COPY avro_src FROM '$WORK/avro_rows.tsv';
	COPY avro_native FROM '$WORK/avro_rows.tsv';
	VACUUM (ANALYZE) avro_native;
	SQL
	for codec in deflate snappy null; do
		avro_timed "export_$codec" <<-SQL
		SELECT widecolumn.export_avro('avro_src', path => '$WORK/rows_$codec.avro', codec => '$codec');
		SQL
		put "avro_bytes.export_$codec" "$(stat -c %s "$WORK/rows_$codec.avro")"
	done
	# a whole-server backup of the same table (snappy, microseconds), and
	# its restore into a new server, COMMIT included
	avro_timed backup <<-SQL
	SELECT widecolumn.backup('wc_avro', '$WORK/backup');
	SQL
	put avro_bytes.backup "$(du -sb "$WORK/backup" | cut -f1)"
	sql -c "CREATE SERVER wc_avro_restored FOREIGN DATA WRAPPER widecolumn_fdw OPTIONS (sync 'off')" \
		-c "CREATE FOREIGN TABLE avro_restored_cells (rowkey text COLLATE \"C\", family text COLLATE \"C\",
		    qualifier text COLLATE \"C\", ts timestamptz, value bytea)
		    SERVER wc_avro_restored OPTIONS (table 'weather', layout 'cells')" >/dev/null
	avro_timed restore <<-SQL
	BEGIN;
	SELECT widecolumn.restore('wc_avro_restored', '$WORK/backup');
	COMMIT;
	SQL
	avro_timed copy_to_native <<-SQL
	COPY (SELECT * FROM avro_native) TO '$WORK/native.tsv';
	SQL
	put avro_bytes.copy_to_native "$(stat -c %s "$WORK/native.tsv")"
	avro_timed copy_from_foreign <<-SQL
	BEGIN;
	COPY avro_copy FROM '$WORK/avro_rows.tsv';
	COMMIT;
	SQL
	avro_timed import_deflate <<-SQL
	BEGIN;
	SELECT widecolumn.import_avro('avro_dst', '$WORK/rows_deflate.avro');
	COMMIT;
	SQL
	avro_timed import_null <<-SQL
	BEGIN;
	SELECT widecolumn.import_avro('avro_dst_null', '$WORK/rows_null.avro');
	COMMIT;
	SQL
	avro_timed copy_from_native <<-SQL
	BEGIN;
	COPY avro_native_copy FROM '$WORK/native.tsv';
	COMMIT;
	SQL
	rm -f "$WORK/avro_rows.tsv"
	# an export is in Bigtable's milliseconds (0.8.0); a backup keeps microseconds
	a=$(sql -c "SELECT count(*), md5(string_agg(rowkey || family || qualifier || date_trunc('milliseconds', ts) || value, ',' ORDER BY rowkey, family, qualifier, ts)) FROM avro_src_cells")
	exact=$(sql -c "SELECT count(*), md5(string_agg(rowkey || family || qualifier || ts || value, ',' ORDER BY rowkey, family, qualifier, ts)) FROM avro_src_cells")
	b=$(sql -c "SELECT count(*), md5(string_agg(rowkey || family || qualifier || ts || value, ',' ORDER BY rowkey, family, qualifier, ts)) FROM avro_dst")
	c=$(sql -c "SELECT count(*), md5(string_agg(rowkey || family || qualifier || ts || value, ',' ORDER BY rowkey, family, qualifier, ts)) FROM avro_dst_null")
	d=$(sql -c "SELECT count(*), md5(string_agg(rowkey || family || qualifier || ts || value, ',' ORDER BY rowkey, family, qualifier, ts)) FROM avro_restored_cells")
	if [ "$a" != "$b" ] || [ "$a" != "$c" ]; then
		say "MISMATCH: the imported tables have $b and $c, the exported one $a (versions|digest)"
		exit 1
	fi
	# the backup keeps microseconds: the restored table is the table exactly
	if [ "$exact" != "$d" ]; then
		say "MISMATCH: the restored table has $d, the backed-up one $exact (versions|digest)"
		exit 1
	fi
	rm -rf "$WORK/backup"
	put avro_versions "${a%|*}"
	rm -f "$WORK"/rows_*.avro "$WORK/native.tsv"
	sql -c "SET client_min_messages = warning" -c "DROP SERVER wc_avro CASCADE" \
		-c "DROP SERVER wc_avro_restored CASCADE" \
		-c "DROP TABLE avro_native, avro_native_copy" >/dev/null
}
