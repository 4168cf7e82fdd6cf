/*  =========================================================================
    test_drover_outbox - commands said in one turn travel as one BATCH, in
    order; plain commands still pass; a batch nobody reads frees itself
    (ASan would report the leak otherwise)
    =========================================================================
*/

#include "testutil_wire.h"
#include "testutil_actor.h"
#include "drover_actor.h"

//  What a receiver saw: the command words, joined by spaces
typedef struct {
    char words [256];           //  e.g. "QUEUE FREE MSG"
    int calls;                  //  handler calls
    drover_msg_t *msg;          //  the message a MSG handed off, if any
} s_seen_t;

//  Record one control command's word
static void
s_record (void *arg, zmsg_t *command)
{
    s_seen_t *seen = (s_seen_t *) arg;
    char *word = zmsg_popstr (command);
    assert_non_null (word);
    if (seen->calls++)
        strcat (seen->words, " ");
    strcat (seen->words, word);
    zstr_free (&word);
}

//  Record one record's word; take a MSG's message
static void
s_record_kept (void *arg, drover_record_t *record)
{
    s_seen_t *seen = (s_seen_t *) arg;
    if (seen->calls++)
        strcat (seen->words, " ");
    strcat (seen->words, drover_record_word (record));
    if (record->kind == DROVER_RECORD_MSG) {
        seen->msg = record->msg;
        record->msg = NULL;
    }
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
        if (index % 2)
            drover_outbox_say_queue (outbox, (uint64_t) index, -index, 1, 0, NULL, NULL);
        else
            drover_outbox_say (outbox, "s8i", "QUEUE", (uint64_t) index, -index);
    drover_msg_t *handed = drover_msg_new (DROVER_MSG_TASK_CANCEL);
    drover_msg_t *handing = handed;
    drover_outbox_say_msg (outbox, (const byte *) "r1", 2, &handing);
    assert_null (handing);
    assert_int_equal (drover_outbox_size (outbox), 41);
    assert_int_equal (drover_outbox_flush (outbox, writer), 0);
    assert_int_equal (drover_outbox_size (outbox), 0);

    s_seen_t seen = { .calls = 0 };
    zpoller_t *poller = zpoller_new (reader, NULL);
    assert_ptr_equal (zpoller_wait (poller, 2000), reader);
    assert_int_equal (drover_outbox_receive (reader, 0, s_record, s_record_kept, &seen), 41);
    assert_int_equal (seen.calls, 41);
    assert_non_null (strstr (seen.words, "QUEUE QUEUE"));
    assert_non_null (strstr (seen.words, "QUEUE MSG"));
    assert_ptr_equal (seen.msg, handed);
    drover_msg_destroy (&seen.msg);
    //  One message carried them all: nothing else is waiting
    assert_int_equal (drover_outbox_receive (reader, ZMQ_DONTWAIT, s_record, s_record_kept,
                                             &seen), -1);
    zpoller_destroy (&poller);
    drover_outbox_destroy (&outbox);
    zsock_destroy (&writer);
    zsock_destroy (&reader);
}

//  What the ahead test saw, in order: for each call, the task of the record
//  shown ahead (positive) or handed over (negative); a command is 0
typedef struct {
    int64_t calls [64];
    size_t count;
} s_order_t;

//  Note a record shown ahead
static void
s_note_ahead (void *arg, const drover_record_t *record)
{
    s_order_t *order = (s_order_t *) arg;
    assert_true (order->count < 64);
    order->calls [order->count++] = (int64_t) record->task;
}

//  Note a record handed over
static void
s_note_record (void *arg, drover_record_t *record)
{
    s_order_t *order = (s_order_t *) arg;
    assert_true (order->count < 64);
    order->calls [order->count++] = -(int64_t) record->task;
}

//  Note a control command
static void
s_note_command (void *arg, zmsg_t *command)
{
    (void) command;
    s_order_t *order = (s_order_t *) arg;
    assert_true (order->count < 64);
    order->calls [order->count++] = 0;
}

//  The position of a call in what the ahead test saw, or -1
static int
s_position (const s_order_t *order, int64_t call)
{
    for (size_t index = 0; index < order->count; index++)
        if (order->calls [index] == call)
            return (int) index;
    return -1;
}

//  Each record of a batch is shown ahead once, before it is handed over
//  and while DROVER_OUTBOX_AHEAD records still come before it; a control
//  command is never shown; a RESTORE's record carries its change's task
static void
test_ahead (void **state)
{
    zsock_t *reader = zsock_new_pair ("@inproc://test-outbox-ahead");
    zsock_t *writer = zsock_new_pair (">inproc://test-outbox-ahead");
    assert_non_null (reader);
    assert_non_null (writer);
    drover_outbox_t *outbox = drover_outbox_new ();
    const int records = 20;
    for (int task = 1; task <= records; task++) {
        if (task == 5)
            drover_outbox_say (outbox, "s", "HELLO");
        if (task % 2) {
            drover_change_t *change = drover_change_new ("task.submitted", (uint64_t) task);
            drover_outbox_say_change (outbox, DROVER_RECORD_RESTORE, &change);
        }
        else
            drover_outbox_say_queue (outbox, (uint64_t) task, 0, 1, 0, NULL, NULL);
    }
    assert_int_equal (drover_outbox_flush (outbox, writer), 0);
    s_order_t order = { .count = 0 };
    assert_int_equal (drover_outbox_receive_ahead (reader, 0, s_note_command, s_note_record,
                                                   s_note_ahead, &order), records + 1);
    assert_int_equal (order.count, 2 * records + 1);
    for (int task = 1; task <= records; task++) {
        int shown = s_position (&order, task);
        int handed = s_position (&order, -task);
        assert_true (shown >= 0 && handed > shown);
        //  Shown just before the record DROVER_OUTBOX_AHEAD entries earlier
        //  is handed over (one entry is a command): not all at once
        if (task - DROVER_OUTBOX_AHEAD + 1 <= records)
            assert_true (shown < s_position (&order, -(task - DROVER_OUTBOX_AHEAD + 1))
                         || task - DROVER_OUTBOX_AHEAD + 1 < 1);
        if (task - DROVER_OUTBOX_AHEAD - 1 >= 1)
            assert_true (shown > s_position (&order, -(task - DROVER_OUTBOX_AHEAD - 1)));
    }
    //  The one command went to its handler, never ahead: one 0 only
    size_t zeros = 0;
    for (size_t index = 0; index < order.count; index++)
        zeros += order.calls [index] == 0;
    assert_int_equal (zeros, 1);
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
    assert_int_equal (drover_outbox_receive (reader, 0, s_keep, NULL, &copy), 1);
    assert_non_null (copy);
    testutil_pop_check (copy, "X");
    assert_int_equal (drover_actor_pop_number (copy), 7);
    assert_true (drover_actor_pop_number (copy) == (uint64_t) 1 << 40);
    assert_int_equal ((int64_t) drover_actor_pop_number (copy), -3);
    testutil_pop_check (copy, "");                  //  a NULL frame is an empty one
    testutil_pop_check (copy, "xy");
    testutil_pop_check (copy, "");                  //  a NULL string is an empty one
    assert_int_equal (zmsg_size (copy), 0);
    zmsg_destroy (&copy);

    //  The ends of each number's range survive the decimal round trip
    drover_outbox_say (outbox, "s8i8i", "Y", (uint64_t) 0, INT_MIN, UINT64_MAX, INT_MAX);
    assert_int_equal (drover_outbox_flush (outbox, writer), 0);
    assert_int_equal (drover_outbox_receive (reader, 0, s_keep, NULL, &copy), 1);
    testutil_pop_check (copy, "Y");
    assert_true (drover_actor_pop_number (copy) == 0);
    assert_true ((int) (int64_t) drover_actor_pop_number (copy) == INT_MIN);
    assert_true (drover_actor_pop_number (copy) == UINT64_MAX);
    assert_true ((int) drover_actor_pop_number (copy) == INT_MAX);
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
    assert_int_equal (drover_outbox_receive (reader, 0, s_record, NULL, &seen), 1);
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
    drover_msg_t *msg;
    for (int round = 0; round < 3; round++) {
        msg = drover_msg_new (DROVER_MSG_TASK_LIST);
        drover_outbox_say_msg (outbox, (byte *) "r9", 2, &msg);
        drover_outbox_say_free (outbox, (uint64_t) round);
        drover_outbox_say (outbox, "ss", "LOST", "alpha");
        assert_int_equal (drover_outbox_flush (outbox, writer), 0);
    }
    //  Records hold a message, a payload, a long route and long labels:
    //  freed with the batch
    msg = drover_msg_new (DROVER_MSG_TASK_LIST);
    byte long_route [200];
    memset (long_route, 'r', sizeof long_route);
    drover_outbox_say_msg (outbox, long_route, sizeof long_route, &msg);
    char long_labels [DROVER_RECORD_LABELS_MAX * 2];
    memset (long_labels, 'l', sizeof long_labels - 1);
    long_labels [sizeof long_labels - 1] = 0;
    drover_outbox_say_queue (outbox, 9, 0, 1, 0, long_labels, NULL);
    zframe_t *payload = zframe_new ("p", 1);
    drover_outbox_say_send (outbox, (byte *) "r9", 2, &payload, "w1");
    assert_int_equal (drover_outbox_flush (outbox, writer), 0);
    msg = drover_msg_new (DROVER_MSG_TASK_LIST);
    drover_outbox_say_msg (outbox, (byte *) "r9", 2, &msg);     //  never flushed
    drover_outbox_destroy (&outbox);
    assert_null (outbox);
    zsock_destroy (&writer);
    zsock_destroy (&reader);
}

//  What a record handler saw: the words, and the fields of the last record
typedef struct {
    char words [256];           //  command words, joined by spaces
    drover_record_t last;       //  a copy of the last record (msg, payload not kept)
    drover_msg_t *msg;          //  the message a MSG record handed off
} s_records_t;

//  Record one record's word and fields; take a MSG's message, leave a
//  SEND's payload for the receiver to destroy
static void
s_take (void *arg, drover_record_t *record)
{
    s_records_t *seen = (s_records_t *) arg;
    if (*seen->words)
        strcat (seen->words, " ");
    strcat (seen->words, drover_record_word (record));
    seen->last = *record;
    if (record->kind == DROVER_RECORD_MSG) {
        seen->msg = record->msg;
        record->msg = NULL;
    }
}

//  Record the command word of a control command
static void
s_word (void *arg, zmsg_t *command)
{
    s_records_t *seen = (s_records_t *) arg;
    char *word = zmsg_popstr (command);
    if (*seen->words)
        strcat (seen->words, " ");
    strcat (seen->words, word);
    zstr_free (&word);
}

//  What test_records expects of each record, in order
typedef struct {
    int count;                  //  records checked
    const char *labels;         //  the long labels said
    const byte *route;          //  the route one byte past what a record holds inside
    const byte *longest;        //  the 255-byte route
} s_fields_t;

//  Check each record test_records says, field by field
static void
s_check (void *arg, drover_record_t *record)
{
    s_fields_t *fields = (s_fields_t *) arg;
    int index = fields->count++;
    if (index == 0) {
        assert_int_equal (record->kind, DROVER_RECORD_MSG);
        assert_int_equal (record->route_size, 2);
        assert_memory_equal (drover_record_route (record), "rt", 2);
        assert_non_null (record->msg);
        assert_int_equal (record->msg->id, DROVER_MSG_TASK_SUBMIT);
    }
    else
    if (index == 1) {
        assert_int_equal (record->kind, DROVER_RECORD_SEND);
        assert_int_equal (record->route_size, 2);
        assert_memory_equal (drover_record_route (record), "rt", 2);
        assert_int_equal (zframe_size (record->payload), 7);
        assert_memory_equal (zframe_data (record->payload), "payload", 7);
        assert_string_equal (record->worker, "w-1");
    }
    else
    if (index == 2) {
        assert_int_equal (record->kind, DROVER_RECORD_QUEUE);
        assert_int_equal (record->task, 42);
        assert_int_equal (record->priority, -3);
        assert_int_equal (record->procs, 2);
        assert_int_equal (record->mem, 1 << 20);
        assert_string_equal (drover_record_labels (record), "");
    }
    else
    if (index == 3) {
        assert_int_equal (record->kind, DROVER_RECORD_FREE);
        assert_int_equal (record->task, 43);
    }
    else
    if (index == 4) {
        assert_int_equal (record->kind, DROVER_RECORD_MSG);
        assert_int_equal (record->route_size, DROVER_RECORD_ROUTE_MAX + 1);
        assert_memory_equal (drover_record_route (record), fields->route,
                             DROVER_RECORD_ROUTE_MAX + 1);
        assert_non_null (record->msg);
    }
    else
    if (index == 5) {
        assert_int_equal (record->kind, DROVER_RECORD_SEND);
        assert_int_equal (record->route_size, 255);
        assert_memory_equal (drover_record_route (record), fields->longest, 255);
        assert_string_equal (record->worker, "w-2");
    }
    else {
        assert_int_equal (record->kind, DROVER_RECORD_QUEUE);
        assert_int_equal (record->task, 7);
        assert_string_equal (drover_record_labels (record), fields->labels);
    }
}

//  A control command where test_records says none
static void
s_word_unexpected (void *arg, zmsg_t *command)
{
    fail_msg ("a message came where only records were said");
}

//  The per-task commands travel as records, never as messages: a record
//  handler gets their fields, whatever the length of a route (1..255
//  bytes) or of the labels, in order with the control commands around them
static void
test_records (void **state)
{
    zsock_t *reader = zsock_new_pair ("@inproc://test-outbox-records");
    zsock_t *writer = zsock_new_pair (">inproc://test-outbox-records");
    drover_outbox_t *outbox = drover_outbox_new ();

    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    drover_msg_t *sent = msg;
    drover_outbox_say_msg (outbox, (byte *) "\x00\x01route", 7, &msg);
    assert_null (msg);
    drover_outbox_say_queue (outbox, 42, -3, 2, 1 << 20, "gpu=1", NULL);
    drover_outbox_say (outbox, "s8", "DEQUEUE", (uint64_t) 41);
    drover_outbox_say_free (outbox, 43);
    assert_int_equal (drover_outbox_size (outbox), 4);
    assert_int_equal (drover_outbox_flush (outbox, writer), 0);
    s_records_t seen = { 0 };
    assert_int_equal (drover_outbox_receive (reader, 0, s_word, s_take, &seen), 4);
    assert_string_equal (seen.words, "MSG QUEUE DEQUEUE FREE");
    assert_ptr_equal (seen.msg, sent);
    drover_msg_destroy (&seen.msg);
    assert_int_equal (seen.last.task, 43);

    //  Every field of each, checked in the handler (what a record holds
    //  is freed after it)
    msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    drover_outbox_say_msg (outbox, (byte *) "rt", 2, &msg);
    zframe_t *payload = zframe_new ("payload", 7);
    drover_outbox_say_send (outbox, (byte *) "rt", 2, &payload, "w-1");
    assert_null (payload);
    drover_outbox_say_queue (outbox, 42, -3, 2, 1 << 20, NULL, NULL);
    drover_outbox_say_free (outbox, 43);
    //  A route longer than a record holds inside, the longest legal one,
    //  and labels longer than it holds inside
    byte route [DROVER_RECORD_ROUTE_MAX + 1];
    memset (route, 'r', sizeof route);
    msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    drover_outbox_say_msg (outbox, route, sizeof route, &msg);
    byte longest [255];
    memset (longest, 'x', sizeof longest);
    payload = zframe_new ("p", 1);
    drover_outbox_say_send (outbox, longest, sizeof longest, &payload, "w-2");
    char labels [DROVER_RECORD_LABELS_MAX + 2];
    memset (labels, 'l', sizeof labels - 1);
    labels [sizeof labels - 1] = 0;
    drover_outbox_say_queue (outbox, 7, 0, 1, 0, labels, NULL);
    assert_int_equal (drover_outbox_flush (outbox, writer), 0);
    s_fields_t fields = { .labels = labels, .route = route, .longest = longest };
    assert_int_equal (drover_outbox_receive (reader, 0, s_word_unexpected, s_check, &fields), 7);
    assert_int_equal (fields.count, 7);

    drover_outbox_destroy (&outbox);
    zsock_destroy (&writer);
    zsock_destroy (&reader);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_batch_in_order),
        cmocka_unit_test (test_ahead),
        cmocka_unit_test (test_picture),
        cmocka_unit_test (test_plain_command),
        cmocka_unit_test (test_unread_batches_free_themselves),
        cmocka_unit_test (test_records),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
