/*  =========================================================================
    testutil_statedir - the store's SQLite state directories for its tests
    (test_drover_store_roundtrip, _refused, _formats): a fresh state
    directory under a fresh temporary directory, SQL run on the closed
    state file (to make it as an older format wrote it), its format
    marker, and opening it or seeing it refused
    =========================================================================
*/

#ifndef TESTUTIL_STATEDIR_H_INCLUDED
#define TESTUTIL_STATEDIR_H_INCLUDED

#include "testutil.h"
#include "drover_store.h"

//  The columns each format added, dropped with those of the formats after
//  it: a state is as the format before wrote it. Format 6: counted
//  devices (a submit's, an attempt's indices); 5: workflows
//  (dependencies, arrays, begin, retry backoff); 4: services' replicas
//  and affinity keys; 3: task times and attempts. Format 7: a fresh
//  task's packed fields.
#define TESTUTIL_DROP_COLUMNS_7 \
    "ALTER TABLE tasks DROP COLUMN fresh;"
#define TESTUTIL_DROP_COLUMNS_6 \
    TESTUTIL_DROP_COLUMNS_7 \
    "ALTER TABLE tasks DROP COLUMN devices; ALTER TABLE tasks DROP COLUMN assigned;"
#define TESTUTIL_DROP_COLUMNS_5 \
    TESTUTIL_DROP_COLUMNS_6 \
    "ALTER TABLE tasks DROP COLUMN \"after\"; ALTER TABLE tasks DROP COLUMN \"begin\";" \
    " ALTER TABLE tasks DROP COLUMN retry_delay; ALTER TABLE tasks DROP COLUMN" \
    " retry_max_delay; ALTER TABLE tasks DROP COLUMN \"array\";" \
    " ALTER TABLE tasks DROP COLUMN waits; ALTER TABLE tasks DROP COLUMN due;" \
    " ALTER TABLE tasks DROP COLUMN grp; ALTER TABLE tasks DROP COLUMN made;"
#define TESTUTIL_DROP_COLUMNS_4 \
    TESTUTIL_DROP_COLUMNS_5 \
    "ALTER TABLE tasks DROP COLUMN service; ALTER TABLE tasks DROP COLUMN slot;" \
    " ALTER TABLE tasks DROP COLUMN affinity;"
#define TESTUTIL_DROP_COLUMNS_3 \
    TESTUTIL_DROP_COLUMNS_4 \
    "ALTER TABLE tasks DROP COLUMN offered; ALTER TABLE tasks DROP COLUMN started;" \
    " ALTER TABLE tasks DROP COLUMN last_outcome; ALTER TABLE tasks DROP COLUMN history;"

//  A fresh state directory under a fresh temporary directory
typedef struct {
    char top [64];                  //  the temporary directory
    char dir [80];                  //  the state directory (made by open)
    char file [96];                 //  dir/state.db
} testutil_statedir_t;

//  cmocka's setup: a fresh temporary directory (its state, a
//  testutil_statedir_t) whose state directory open makes
int
    testutil_statedir_setup (void **state);

//  cmocka's teardown: remove the temporary directory and all in it
int
    testutil_statedir_teardown (void **state);

//  Read the format marker of a state file
char *
    testutil_statedir_format (const char *file);

//  Run sql on the state file (closed); asserts it succeeds
void
    testutil_statedir_sql_file (const char *file, const char *sql);

//  Run a one-row query on the state file (closed); returns its first
//  column as an integer, asserting a row came
int64_t
    testutil_statedir_query_int (const char *file, const char *sql);

//  Open the state in dirs->dir, failing the test with open's text if it
//  is refused
drover_store_t *
    testutil_statedir_open (testutil_statedir_t *dirs);

//  Run sql on the closed state (making it as an older format wrote it),
//  then open it, failing the test if it is refused
drover_store_t *
    testutil_statedir_open_after_sql (testutil_statedir_t *dirs, const char *sql);

//  Make a state with a few tasks in dirs->dir, closed
void
    testutil_statedir_make (testutil_statedir_t *dirs, uint64_t tasks);

//  Assert that opening or loading dirs->dir fails with a message naming
//  the file and what to do
void
    testutil_statedir_assert_refused (testutil_statedir_t *dirs);

#endif
