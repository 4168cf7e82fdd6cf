/*  =========================================================================
    test_drover_adminwait - WORKER ADMIN answers held until a lease is back
    =========================================================================
*/

#include "testutil.h"
#include "drover_adminwait.h"

//  Append one said SEND's "seq:reason " to the text (arg)
static void
s_note (void *arg, drover_record_t *record)
{
    char *text = (char *) arg;
    assert_int_equal (record->kind, DROVER_RECORD_SEND);
    assert_memory_equal (drover_record_route (record), "client", 6);
    drover_msg_t *reply = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (reply, zframe_data (record->payload),
                                         zframe_size (record->payload)), 0);
    assert_int_equal (reply->id, DROVER_MSG_OK);
    size_t used = strlen (text);
    snprintf (text + used, 256 - used, "%u:%s ", reply->seq, reply->reason? reply->reason: "");
    drover_msg_destroy (&reply);
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

    drover_outbox_t *outbox = drover_outbox_new ();
    assert_int_equal (drover_adminwait_answer (waits, "gamma", outbox, "test"), 0);
    assert_int_equal (drover_adminwait_answer (waits, "alpha", outbox, "test"), 2);
    assert_int_equal (drover_adminwait_size (waits), 1);
    assert_int_equal (drover_adminwait_answer (waits, "alpha", outbox, "test"), 0);
    assert_int_equal (drover_adminwait_answer (waits, "beta", outbox, "test"), 1);
    assert_int_equal (drover_adminwait_size (waits), 0);
    char text [256] = "";
    drover_outbox_each (outbox, s_note, text);
    assert_string_equal (text, "1:held 3:held again 2:drained ");
    drover_outbox_destroy (&outbox);

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
