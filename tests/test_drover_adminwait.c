/*  =========================================================================
    test_drover_adminwait - WORKER ADMIN answers held until a lease is back
    =========================================================================
*/

#include "testutil.h"
#include "drover_adminwait.h"

//  Append one answer's "worker/seq:text " to the text (arg)
static void
s_note (void *arg, const char *worker, zframe_t *route, uint32_t seq, const char *text)
{
    char *notes = (char *) arg;
    assert_true (zframe_streq (route, "client"));
    size_t used = strlen (notes);
    snprintf (notes + used, 256 - used, "%s/%u:%s ", worker, seq, text);
}

//  Answers wait per worker, in order, each once; others stay
static void
test_answers_per_worker (void **state)
{
    (void) state;
    drover_adminwait_t *waits = drover_adminwait_new ();
    zframe_t *route = zframe_new ("client", 6);
    drover_adminwait_add (waits, "alpha", route, 1, "held");
    drover_adminwait_add (waits, "beta", route, 2, "drained");
    drover_adminwait_add (waits, "alpha", route, 3, "held again");
    zframe_destroy (&route);            //  copied
    assert_int_equal (drover_adminwait_size (waits), 3);

    char notes [256] = "";
    assert_int_equal (drover_adminwait_answer (waits, "gamma", s_note, notes), 0);
    assert_int_equal (drover_adminwait_answer (waits, "alpha", s_note, notes), 2);
    assert_int_equal (drover_adminwait_size (waits), 1);
    assert_int_equal (drover_adminwait_answer (waits, "alpha", s_note, notes), 0);
    assert_int_equal (drover_adminwait_answer (waits, "beta", s_note, notes), 1);
    assert_int_equal (drover_adminwait_size (waits), 0);
    assert_string_equal (notes, "alpha/1:held alpha/3:held again beta/2:drained ");

    route = zframe_new ("client", 6);
    drover_adminwait_add (waits, "delta", route, 4, "left waiting");
    zframe_destroy (&route);
    drover_adminwait_destroy (&waits);  //  frees what waits
    drover_adminwait_destroy (&waits);  //  harmless on NULL
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_answers_per_worker),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
