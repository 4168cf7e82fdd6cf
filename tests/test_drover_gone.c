/*  =========================================================================
    test_drover_gone - workers that went, with a fake clock: kept and
    expired, bounded, replaced when they come back; and the admin book:
    settings kept by worker id whatever the worker's registrations
    =========================================================================
*/

#include "testutil.h"
#include "drover_msg.h"
#include "drover_gone.h"
#include "drover_adminbook.h"

//  Rows last keep msec; at most max of them
static void
test_kept_then_expired (void **state)
{
    drover_gone_t *gone = drover_gone_new (60000, 10);
    assert_null (drover_gone_first (gone));
    drover_gone_add (gone, "alpha", DROVER_WORKER_LOST, "silent", 1000, 4, 1024, "zone=a");
    drover_gone_add (gone, "beta", DROVER_WORKER_LEFT, "left", 2000, 2, 0, NULL);
    assert_int_equal (drover_gone_size (gone), 2);
    const drover_gone_row_t *row = drover_gone_lookup (gone, "alpha");
    assert_non_null (row);
    assert_int_equal (row->state, DROVER_WORKER_LOST);
    assert_int_equal (row->since, 1000);
    assert_string_equal (row->why, "silent");
    assert_int_equal (row->procs, 4);
    assert_int_equal (row->mem, 1024);
    assert_string_equal (row->labels, "zone=a");
    assert_string_equal (drover_gone_lookup (gone, "beta")->labels, "");
    //  Oldest first
    assert_string_equal (drover_gone_first (gone)->id, "alpha");
    assert_string_equal (drover_gone_next (gone)->id, "beta");
    assert_null (drover_gone_next (gone));
    //  Not before keep; each at its own time
    assert_int_equal (drover_gone_expire (gone, 60999), 0);
    assert_int_equal (drover_gone_expire (gone, 61000), 1);
    assert_null (drover_gone_lookup (gone, "alpha"));
    assert_non_null (drover_gone_lookup (gone, "beta"));
    assert_int_equal (drover_gone_expire (gone, 62000), 1);
    assert_int_equal (drover_gone_size (gone), 0);
    drover_gone_destroy (&gone);
    assert_null (gone);
    drover_gone_destroy (&gone);         //  harmless twice
}

//  At most max rows: the oldest go first; max 0 keeps none; lowering it
//  drops the oldest at once
static void
test_bounded (void **state)
{
    drover_gone_t *gone = drover_gone_new (60000, 3);
    char id [16];
    for (int index = 0; index < 5; index++) {
        snprintf (id, sizeof id, "w%d", index);
        drover_gone_add (gone, id, DROVER_WORKER_LOST, "silent", 1000 + index, 1, 0, "");
    }
    assert_int_equal (drover_gone_size (gone), 3);
    assert_null (drover_gone_lookup (gone, "w0"));
    assert_null (drover_gone_lookup (gone, "w1"));
    assert_string_equal (drover_gone_first (gone)->id, "w2");
    drover_gone_set_limits (gone, 60000, 1);
    assert_int_equal (drover_gone_size (gone), 1);
    assert_non_null (drover_gone_lookup (gone, "w4"));
    drover_gone_set_limits (gone, 60000, 0);
    drover_gone_add (gone, "w5", DROVER_WORKER_LOST, "silent", 2000, 1, 0, "");
    assert_int_equal (drover_gone_size (gone), 0);
    drover_gone_destroy (&gone);
}

//  A worker that comes back loses its row; one that goes again gets a new
//  one, in place of the old, at the end of the order
static void
test_replaced_on_return (void **state)
{
    drover_gone_t *gone = drover_gone_new (60000, 10);
    drover_gone_add (gone, "alpha", DROVER_WORKER_LOST, "silent", 1000, 1, 0, "");
    drover_gone_add (gone, "beta", DROVER_WORKER_LOST, "silent", 1500, 1, 0, "");
    assert_true (drover_gone_remove (gone, "alpha"));       //  back
    assert_false (drover_gone_remove (gone, "alpha"));
    assert_int_equal (drover_gone_size (gone), 1);
    drover_gone_add (gone, "beta", DROVER_WORKER_LEFT, "left", 5000, 1, 0, "");
    assert_int_equal (drover_gone_size (gone), 1);
    const drover_gone_row_t *row = drover_gone_lookup (gone, "beta");
    assert_int_equal (row->state, DROVER_WORKER_LEFT);
    assert_int_equal (row->since, 5000);
    assert_string_equal (row->why, "left");
    assert_int_equal (drover_gone_expire (gone, 61499), 0);    //  the old time is gone too
    assert_int_equal (drover_gone_expire (gone, 65000), 1);
    drover_gone_destroy (&gone);
}

//  The admin book keeps a setting by worker id, whatever happens to the
//  worker's registration (the book knows none: schedq asks it at each UP);
//  RUN forgets; flags clear; it is bounded
static void
test_admin_book (void **state)
{
    drover_adminbook_t *book = drover_adminbook_new (2);
    assert_null (drover_adminbook_lookup (book, "alpha"));
    assert_int_equal (drover_adminbook_set (book, "alpha", DROVER_ADMIN_HOLD, 0, "disk swap",
                                            1000), 0);
    assert_int_equal (drover_adminbook_set (book, "beta", DROVER_ADMIN_DRAIN, DROVER_ADMIN_EXIT,
                                            NULL, 2000), 0);
    assert_int_equal (drover_adminbook_set (book, "gamma", DROVER_ADMIN_HOLD, 0, "", 3000), -1);
    assert_int_equal (drover_adminbook_set (book, "alpha", 7, 0, "", 3000), -1);
    const drover_adminbook_entry_t *entry = drover_adminbook_lookup (book, "alpha");
    assert_non_null (entry);
    assert_int_equal (entry->admin, DROVER_ADMIN_HOLD);
    assert_string_equal (entry->reason, "disk swap");
    assert_int_equal (entry->since, 1000);
    entry = drover_adminbook_lookup (book, "beta");
    assert_string_equal (entry->reason, "");
    assert_true (drover_adminbook_clear_flags (book, "beta", DROVER_ADMIN_EXIT));
    assert_false (drover_adminbook_clear_flags (book, "beta", DROVER_ADMIN_EXIT));
    assert_int_equal (drover_adminbook_lookup (book, "beta")->flags, 0);
    assert_int_equal (drover_adminbook_lookup (book, "beta")->admin, DROVER_ADMIN_DRAIN);
    //  Replaced in place: a full book still takes a change of a known id
    assert_int_equal (drover_adminbook_set (book, "alpha", DROVER_ADMIN_DRAIN, 0, "fsck",
                                            4000), 0);
    assert_string_equal (drover_adminbook_lookup (book, "alpha")->reason, "fsck");
    assert_int_equal (drover_adminbook_set (book, "alpha", DROVER_ADMIN_RUN, 0, NULL, 5000), 0);
    assert_null (drover_adminbook_lookup (book, "alpha"));
    assert_int_equal (drover_adminbook_size (book), 1);
    assert_int_equal (drover_adminbook_set (book, "gamma", DROVER_ADMIN_HOLD, 0, "", 3000), 0);
    drover_adminbook_destroy (&book);
    assert_null (book);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_kept_then_expired),
        cmocka_unit_test (test_bounded),
        cmocka_unit_test (test_replaced_on_return),
        cmocka_unit_test (test_admin_book),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
