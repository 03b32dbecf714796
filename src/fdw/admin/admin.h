/*-------------------------------------------------------------------------
 *
 * admin.h
 *	  Statements and SQL functions that manage and inspect a server's
 *	  stored tables: IMPORT FOREIGN SCHEMA (import.c), the storage worker's
 *	  figures (statworker.c), and LevelDB's estimates of tables' sizes
 *	  (tablesizes.c).  Only the handler calls in, for IMPORT FOREIGN SCHEMA.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WC_FDW_ADMIN_ADMIN_H
#define WC_FDW_ADMIN_ADMIN_H

#include "fdw/fdw.h"

/* in import.c */
extern List *wcImportForeignSchema(ImportForeignSchemaStmt *stmt, Oid serverOid);

#endif							/* WC_FDW_ADMIN_ADMIN_H */
