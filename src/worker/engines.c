/*-------------------------------------------------------------------------
 *
 * engines.c
 *	  The storage engines the worker has, found by the name a server's
 *	  engine option gives (serve.c's OPEN), and given their turns by the
 *	  main loop (main.c) and their figures by workerstats.c.
 *
 * A new engine is a line here and a folder of its own (engine.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "worker/worker.h"

const WcEngine *const wc_engines[] = {&wc_leveldb_engine, &wc_bigtable_engine};
const int	wc_nengines = lengthof(wc_engines);
