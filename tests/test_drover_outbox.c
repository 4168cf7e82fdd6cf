/*  =========================================================================
    test_drover_outbox - commands said in one turn travel as one BATCH, in
    order; plain commands still pass; a batch nobody reads frees itself
    (ASan would report the leak otherwise)
    =========================================================================
*/

#include "testutil.h"
#include "drover_pipe.h"

//  What a receiver saw: the command words, joined by spaces
typedef struct {
    char words [256];           //  e.g. "QUEUE FREE MSG"
    int calls;                  //  handler calls
    drover_msg_t *msg;          //  the message a MSG handed off, if any
} s_seen_t;

//  Record one command's word; take a MSG's message
static void
s_record (void *arg, zmsg_t *command)
{
    s_seen_t *seen = (s_seen_t *) arg;
    char *word = zmsg_popstr (command);
    assert_non_null (word);
    if (seen->calls++)
        strcat (seen->words, " ");
    strcat (seen->words, word);
    if (streq (word, "MSG")) {
        zframe_t *route = zmsg_pop (command);
        seen->msg = drover_pipe_pop_msg (command);
        zframe_destroy (&route);
    }
    zstr_free (&word);
}

//  Keep a copy of the one command received
static void
s_keep (void *arg, zmsg_t *command)
{
    *(zmsg_t **) arg = zmsg_dup (command);
}

//  Several commands in one turn arrive as one message, in order, with
//  their frames intact
static void
test_batch_in_order (void **state)
{
    zsock_t *reader = zsock_new_pair ("@inproc://test-outbox-order");
    zsock_t *writer = zsock_new_pair (">inproc://test-outbox-order");
    assert_non_null (reader);
    assert_non_null (writer);
    drover_outbox_t *outbox = drover_outbox_new ();
    assert_int_equal (drover_outbox_flush (outbox, writer), 0);     //  empty: nothing sent
    for (int index = 0; index < 40; index++)            //  past the first allocation
        drover_outbox_say (outbox, "s8i", "QUEUE", (uint64_t) index, -index);
    drover_msg_t *handed = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    zframe_t *route = zframe_new ("r1", 2);
    drover_outbox_say (outbox, "sfp", "MSG", route, handed);
    zframe_destroy (&route);
    assert_int_equal (drover_outbox_size (outbox), 41);
    assert_int_equal (drover_outbox_flush (outbox, writer), 0);
    assert_int_equal (drover_outbox_size (outbox), 0);

    s_seen_t seen = { .calls = 0 };
    zpoller_t *poller = zpoller_new (reader, NULL);
    assert_ptr_equal (zpoller_wait (poller, 2000), reader);
    assert_int_equal (drover_outbox_receive (reader, 0, s_record, &seen), 41);
    assert_int_equal (seen.calls, 41);
    assert_non_null (strstr (seen.words, "QUEUE QUEUE"));
    assert_non_null (strstr (seen.words, "QUEUE MSG"));
    assert_ptr_equal (seen.msg, handed);
    drover_msg_destroy (&seen.msg);
    //  One message carried them all: nothing else is waiting
    assert_int_equal (drover_outbox_receive (reader, ZMQ_DONTWAIT, s_record, &seen), -1);
    zpoller_destroy (&poller);
    drover_outbox_destroy (&outbox);
    zsock_destroy (&writer);
    zsock_destroy (&reader);
}

//  Numbers and frames come out as zsock_send would write them
static void
test_picture (void **state)
{
    zsock_t *reader = zsock_new_pair ("@inproc://test-outbox-picture");
    zsock_t *writer = zsock_new_pair (">inproc://test-outbox-picture");
    drover_outbox_t *outbox = drover_outbox_new ();
    zframe_t *frame = zframe_new ("abc", 3);
    drover_outbox_say (outbox, "s48ifbs", "X", (uint32_t) 7, (uint64_t) 1 << 40, -3, frame,
                       "xy", (size_t) 2, NULL);
    zframe_destroy (&frame);
    assert_int_equal (drover_outbox_flush (outbox, writer), 0);
    zmsg_t *command = testutil_recv (reader, 2000);
    assert_non_null (command);
    char *word = zmsg_popstr (command);
    assert_string_equal (word, "BATCH");            //  what travels is the batch
    zstr_free (&word);
    zmsg_destroy (&command);                        //  never taken: frees itself
    drover_outbox_say (outbox, "s48ifbs", "X", (uint32_t) 7, (uint64_t) 1 << 40, -3, NULL,
                       "xy", (size_t) 2, NULL);
    assert_int_equal (drover_outbox_flush (outbox, writer), 0);
    zmsg_t *copy = NULL;
    assert_int_equal (drover_outbox_receive (reader, 0, s_keep, &copy), 1);
    assert_non_null (copy);
    testutil_pop_check (copy, "X");
    assert_int_equal (drover_pipe_pop_number (copy), 7);
    assert_true (drover_pipe_pop_number (copy) == (uint64_t) 1 << 40);
    assert_int_equal ((int64_t) drover_pipe_pop_number (copy), -3);
    testutil_pop_check (copy, "");                  //  a NULL frame is an empty one
    testutil_pop_check (copy, "xy");
    testutil_pop_check (copy, "");                  //  a NULL string is an empty one
    assert_int_equal (zmsg_size (copy), 0);
    zmsg_destroy (&copy);

    //  The ends of each number's range survive the decimal round trip
    drover_outbox_say (outbox, "s8i8i", "Y", (uint64_t) 0, INT_MIN, UINT64_MAX, INT_MAX);
    assert_int_equal (drover_outbox_flush (outbox, writer), 0);
    assert_int_equal (drover_outbox_receive (reader, 0, s_keep, &copy), 1);
    testutil_pop_check (copy, "Y");
    assert_true (drover_pipe_pop_number (copy) == 0);
    assert_true ((int) (int64_t) drover_pipe_pop_number (copy) == INT_MIN);
    assert_true (drover_pipe_pop_number (copy) == UINT64_MAX);
    assert_true ((int) drover_pipe_pop_number (copy) == INT_MAX);
    zmsg_destroy (&copy);
    drover_outbox_destroy (&outbox);
    zsock_destroy (&writer);
    zsock_destroy (&reader);
}

//  A plain command (as zsock_send writes one) is handed over as it is
static void
test_plain_command (void **state)
{
    zsock_t *reader = zsock_new_pair ("@inproc://test-outbox-plain");
    zsock_t *writer = zsock_new_pair (">inproc://test-outbox-plain");
    assert_int_equal (zsock_send (writer, "ss", "LOST", "alpha"), 0);
    s_seen_t seen = { .calls = 0 };
    assert_int_equal (drover_outbox_receive (reader, 0, s_record, &seen), 1);
    assert_string_equal (seen.words, "LOST");
    zsock_destroy (&writer);
    zsock_destroy (&reader);
}

//  Batches left unread when the sockets close, and an outbox destroyed
//  unflushed, free their commands and the messages MSGs hand off
static void
test_unread_batches_free_themselves (void **state)
{
    zsock_t *reader = zsock_new_pair ("@inproc://test-outbox-unread");
    zsock_t *writer = zsock_new_pair (">inproc://test-outbox-unread");
    drover_outbox_t *outbox = drover_outbox_new ();
    zframe_t *route = zframe_new ("r9", 2);
    for (int round = 0; round < 3; round++) {
        drover_outbox_say (outbox, "sfp", "MSG", route, drover_msg_new (DROVER_MSG_TASK_LIST));
        drover_outbox_say (outbox, "s8", "FREE", (uint64_t) round);
        assert_int_equal (drover_outbox_flush (outbox, writer), 0);
    }
    drover_outbox_say (outbox, "sfp", "MSG", route, drover_msg_new (DROVER_MSG_TASK_LIST));
    zframe_destroy (&route);
    drover_outbox_destroy (&outbox);
    assert_null (outbox);
    zsock_destroy (&writer);
    zsock_destroy (&reader);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_batch_in_order),
        cmocka_unit_test (test_picture),
        cmocka_unit_test (test_plain_command),
        cmocka_unit_test (test_unread_batches_free_themselves),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
