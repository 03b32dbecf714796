
# widecolumn.key_heatmap_svg, checked by a real browser: headless Chromium
# (Debian's chromium) loads each picture as an image, draws it on a canvas
# and reports, in the page's title, whether it loaded, its size and how many
# pixels have the scale's hottest colour; it also renders a PNG screenshot,
# whose size is read from the PNG header.  A picture that is not valid SVG
# (an unescaped key, a broken element) fails to load.
#
# The workload is the seeds' warning: sequential timestamp-first row keys
# (every write lands on the table's one end) beside well-designed keys
# spread over regions.  The hottest range must be labelled with the
# timestamp keys' prefix.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use MIME::Base64;
use WcTest;

my ($chromium) = grep { -x } map { "$_/chromium" } split /:/, $ENV{PATH};
ok(defined $chromium, 'chromium is installed (make test installs it)')
  or BAIL_OUT('no chromium');

my $node = wc_node('wc_heatmap_svg');
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION widecolumn_fdw;
CREATE SERVER wc FOREIGN DATA WRAPPER widecolumn_fdw;
CREATE FOREIGN TABLE balloon (k text OPTIONS (rowkey 'true') COLLATE "C", pressure int)
	SERVER wc OPTIONS (table 'balloon');
CREATE FOREIGN TABLE odd (k text OPTIONS (rowkey 'true') COLLATE "C", v int)
	SERVER wc OPTIONS (table 'odd');
CREATE FOREIGN TABLE idle (k text OPTIONS (rowkey 'true') COLLATE "C", v int)
	SERVER wc OPTIONS (table 'idle');
INSERT INTO balloon
	SELECT r || '#balloon' || lpad(b::text, 3, '0') || '#' || lpad(m::text, 4, '0'), b * m
	  FROM unnest(ARRAY['asia-east1', 'europe-west2', 'us-central1', 'us-west2']) r,
	       generate_series(1, 20) b, generate_series(1, 10) m;
});
# the hotspot: one transaction after another, each appending at the end of
# the timestamp keys
for my $batch (1 .. 20)
{
	$node->safe_psql('postgres',
		"INSERT INTO balloon SELECT to_char(timestamp '2026-11-26 00:00' + (($batch * 500 + i) || ' s')::interval,"
		  . " 'YYYY-MM-DD\"T\"HH24:MI:SS'), i FROM generate_series(1, 500) i");
}
# keys that XML must escape, a control character and a backslash (which
# COPY's text format would double), in every key, so that every range
# boundary the worker picks shows them
$node->safe_psql('postgres',
	q{INSERT INTO odd SELECT E'a<b&c "q" \'s\' tab\there back\\\\slash ünï>' || lpad(i::text, 4, '0'), i
	    FROM generate_series(1, 1000) i});

my $dir = PostgreSQL::Test::Utils::tempdir();

# The picture, written as psql's \copy would write it, and what the browser
# makes of it: "loaded WxH top=N", or "error".
sub render
{
	my ($name, $sql) = @_;
	# as the README says to save it
	my ($rc, $stdout, $stderr) =
	  $node->psql('postgres', "\\copy (SELECT $sql) TO '$dir/$name.svg'");
	is($rc, 0, "\\copy writes $name.svg") or diag $stderr;
	open my $f, '<', "$dir/$name.svg" or die;
	my $svg = do { local $/; <$f> };
	close $f;

	my $data = encode_base64($svg, '');
	open my $h, '>', "$dir/$name.html" or die;
	print $h <<"HTML";
<!DOCTYPE html><html><head><title>pending</title></head><body><canvas id="c"></canvas><script>
const img = new Image();
img.onload = () => {
  const c = document.getElementById('c');
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  let top = 0;
  for (let i = 0; i < d.length; i += 4)
    if (Math.abs(d[i] - 253) < 8 && Math.abs(d[i + 1] - 231) < 8 && Math.abs(d[i + 2] - 37) < 8) top++;
  document.title = 'loaded ' + img.naturalWidth + 'x' + img.naturalHeight + ' top=' + top;
};
img.onerror = () => { document.title = 'error'; };
img.src = 'data:image/svg+xml;base64,$data';
</script></body></html>
HTML
	close $h;

	# The browser is not ours: make asan and make tsan preload their
	# runtime into every process of a TAP run, which Chromium must not get.
	# timeout(1) keeps a browser that hangs from hanging the suite.
	local %ENV = %ENV;
	delete @ENV{qw(LD_PRELOAD ASAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS)};
	$ENV{HOME} = $dir;
	my @browser = ('timeout', '120', $chromium, '--headless', '--no-sandbox', '--disable-gpu',
		'--hide-scrollbars');
	my ($out, $err) = run_command([ @browser, '--virtual-time-budget=10000', '--dump-dom',
		"file://$dir/$name.html" ]);
	my ($title) = $out =~ m{<title>([^<]*)</title>};
	run_command([ @browser, '--window-size=1200,640', "--screenshot=$dir/$name.png",
		"file://$dir/$name.svg" ]);
	return ($title // 'no title', $svg);
}

# a PNG's width and height, from its IHDR chunk
sub png_size
{
	my ($file) = @_;
	open my $f, '<:raw', $file or return 'no file';
	read $f, my $head, 24;
	close $f;
	return 'not a PNG' unless substr($head, 0, 8) eq "\x89PNG\r\n\x1a\n";
	my ($w, $h) = unpack('NN', substr($head, 16, 8));
	return "${w}x$h";
}

my ($title, $svg) = render('writes', q{widecolumn.key_heatmap_svg('balloon', 'writes')});
like($title, qr/^loaded 1200x640 top=[1-9]/, "the writes' map loads in Chromium at 1200x640, with hot pixels ($title)");
is(png_size("$dir/writes.png"), '1200x640', 'and renders to a 1200x640 PNG');
# the hottest range, labelled first, is the timestamp keys'
my ($first_label) = $svg =~ m{<text x="\d+" y="[\d.]+" fill="#c0392b">([^<]*)</text>};
like($first_label, qr/^2026-/, "the hottest key group is the timestamp keys' ($first_label)");
like($svg, qr/>(asia-east1|europe-west2|us-central1|us-west2)#balloon\d+#\d+</, 'well-designed keys label the key axis');
# the time axis is the hour since "since", a column per bucket, quiet ones
# too: the writes of a minute or two are one column of 60 (720 / 60 = 12
# pixels), and the axis is labelled evenly from the start
my @widths = $svg =~ m{<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)" height="[\d.]+" fill="#[0-9a-f]{6}"><title>}g;
ok(@widths > 0 && !grep({ $_ ne '12.00' } @widths), 'every busy cell is one bucket of 60 wide (' . join(',', @widths[0 .. ($#widths < 3 ? $#widths : 3)]) . ')');
my @ticks = $svg =~ m{<line x1="([\d.]+)" y1="530" x2="[\d.]+" y2="535" stroke="#444"/><text}g;
is(join(',', @ticks), join(',', map { sprintf('%.1f', 220 + $_ * 12) } (0, 8, 16, 24, 32, 40, 48, 56)),
	'the time axis has a label every 8 buckets, from the first');

# a span under an hour: a column per minute (the worker's), from the minute
# "since" falls in, so the same writes are one wide column, not a stripe
($title, $svg) = render('short', q{widecolumn.key_heatmap_svg('balloon', 'writes', now() - interval '150 seconds')});
like($title, qr/^loaded 1200x640 top=[1-9]/, "the last minutes' map loads ($title)");
@ticks = $svg =~ m{<line x1="([\d.]+)" y1="530" x2="[\d.]+" y2="535" stroke="#444"/><text}g;
my @labels = $svg =~ m{y2="535" stroke="#444"/><text x="[\d.]+" y="548">([^<]*)</text>}g;
my $ncols = scalar(@ticks);
ok($ncols == 3 || $ncols == 4, "a column and a label per minute ($ncols: @labels)");
is(join(',', @ticks), join(',', map { sprintf('%.1f', 220 + $_ * 720 / $ncols) } 0 .. $ncols - 1),
	'evenly spaced from the start');
ok(@labels == $ncols && !grep({ !/^\d\d:\d\d$/ } @labels), 'each labelled with its minute');
@widths = $svg =~ m{<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)" height="[\d.]+" fill="#[0-9a-f]{6}"><title>}g;
my $col_w = sprintf('%.2f', 720 / $ncols);
ok(@widths > 0 && !grep({ $_ ne $col_w } @widths), "every busy cell is one minute wide ($col_w)");

$node->safe_psql('postgres', q{SELECT count(*) FROM balloon WHERE k LIKE 'us-west2#%'});
($title) = render('reads', q{widecolumn.key_heatmap_svg('balloon')});
like($title, qr/^loaded 1200x640 top=[1-9]/, "the reads' map loads ($title)");

($title, $svg) = render('odd', q{widecolumn.key_heatmap_svg('odd', 'writes')});
like($title, qr/^loaded 1200x640/, "keys with <, &, quotes and a tab are escaped: the map loads ($title)");
like($svg, qr/a&lt;b&amp;c &quot;q&quot; &apos;s&apos; tab\?here back&#92;slash/, 'keys are shown escaped');
like($svg, qr/back&#92;slash/, 'a backslash is a character reference, which \\copy leaves alone');

($title, $svg) = render('idle', q{widecolumn.key_heatmap_svg('idle', 'writes')});
like($title, qr/^loaded 1200x640 top=0$/, "a table with no activity gives an empty map that loads ($title)");
like($svg, qr/no activity recorded/, 'and says so');

# the example in the README is this test's map of the hotspot
if ($ENV{WC_HEATMAP_EXAMPLE})
{
	system('cp', "$dir/writes.png", $ENV{WC_HEATMAP_EXAMPLE}) == 0 or die;
}

$node->stop;
done_testing();
