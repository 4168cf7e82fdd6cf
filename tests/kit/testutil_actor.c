/*  =========================================================================
    testutil_actor - playing the broker main to one actor over its pipe (and the (see the header)
    =========================================================================
*/

#include "testutil_actor.h"

//  Commands an actor said in a BATCH and the test has not read yet, and
//  the socket they came from (a test plays the main to one actor at a
//  time, and maybe the other end of its link): one for the actor's pipe,
//  one for a link
typedef struct {
    zlist_t *commands;          //  zmsg_t, in the order said
    void *from;                 //  the actor or link they came from
} s_pending_t;
static s_pending_t s_pending [2];

//  Forget the pending commands of one socket
static void
s_pending_clear (s_pending_t *pending)
{
    zmsg_t *msg;
    while (pending->commands && (msg = (zmsg_t *) zlist_pop (pending->commands)))
        zmsg_destroy (&msg);
}

//  Destroy an actor whose commands the tests read, forgetting those of
//  them still pending: a later actor may be made at the same address, and
//  must not be taken for this one (its leftover commands read as its own)
void
testutil_actor_destroy (zactor_t **actor_p)
{
    assert (actor_p);
    for (int index = 0; index < 2; index++)
        if (*actor_p && s_pending [index].from == (void *) *actor_p) {
            s_pending_clear (&s_pending [index]);
            s_pending [index].from = NULL;
        }
    zactor_destroy (actor_p);
}

//  Forget every pending command (at exit)
static void
s_pending_purge (void)
{
    for (int index = 0; index < 2; index++) {
        s_pending_clear (&s_pending [index]);
        zlist_destroy (&s_pending [index].commands);
    }
}

//  Keep a copy of one control command of a BATCH (drover_outbox_receive
//  calls this)
static void
s_pend (void *arg, zmsg_t *command)
{
    zlist_append ((zlist_t *) arg, zmsg_dup (command));
}

//  Keep one record of a BATCH as the frames ACTORS.md lists for its
//  command, so a test reads every command alike (the pointer a MSG hands
//  off is not expected from an actor: actors say SEND, QUEUE, TAKE, ASSIGN
//  and FREE; a CHANGE or RESTORE as topic task attempt worker reason state
//  and "submit" or "record" / "done" for what it carries, "" if not; a MSG as route and
//  the message encoded)
static void
s_pend_record (void *arg, drover_record_t *record)
{
    zmsg_t *command = zmsg_new ();
    zmsg_addstr (command, drover_record_word (record));
    if (record->kind == DROVER_RECORD_SEND || record->kind == DROVER_RECORD_REPLY) {
        zmsg_addmem (command, drover_record_route (record), record->route_size);
        zmsg_append (command, &record->payload);
        zmsg_addstr (command, record->worker);
    }
    else
    if (record->kind == DROVER_RECORD_QUEUE) {
        zmsg_addstrf (command, "%" PRIu64, record->task);
        zmsg_addstrf (command, "%d", record->priority);
        zmsg_addstrf (command, "%u", record->procs);
        zmsg_addstrf (command, "%" PRIu64, record->mem);
        zmsg_addstr (command, drover_record_labels (record));
    }
    else
    if (record->kind == DROVER_RECORD_TAKE) {
        zmsg_addstrf (command, "%" PRIu64, record->lease);
        zmsg_addstrf (command, "%" PRIu64, record->task);
        zmsg_addstrf (command, "%u", record->procs);
        zmsg_addstrf (command, "%" PRIu64, record->mem);
        zmsg_addstr (command, drover_record_labels (record));
    }
    else
    if (record->kind == DROVER_RECORD_ASSIGN) {
        zmsg_addstrf (command, "%" PRIu64, record->task);
        zmsg_addstr (command, record->worker);
    }
    else
    if (record->kind == DROVER_RECORD_FREE)
        zmsg_addstrf (command, "%" PRIu64, record->task);
    else
    if (record->kind == DROVER_RECORD_CHANGE || record->kind == DROVER_RECORD_RESTORE) {
        drover_change_t *change = record->change;
        zmsg_addstr (command, change->topic);
        zmsg_addstrf (command, "%" PRIu64, change->task);
        zmsg_addstrf (command, "%u", change->attempt);
        zmsg_addstr (command, change->worker);
        zmsg_addstr (command, change->reason);
        zmsg_addstrf (command, "%u", change->state);
        zmsg_addstr (command, change->submit? "submit": change->record? "record": "");
        zmsg_addstr (command, change->done? "done": "");
    }
    else
    if (record->kind == DROVER_RECORD_MSG) {
        zmsg_addmem (command, drover_record_route (record), record->route_size);
        zframe_t *payload = drover_msg_encode (record->msg);
        assert_non_null (payload);
        zmsg_append (command, &payload);
    }
    else
        fail_msg ("an actor said %s", drover_record_word (record));
    zlist_append ((zlist_t *) arg, command);
}

//  Receive the next command from sock (an actor's pipe at slot 0, a link
//  at slot 1) within timeout msec, one at a time out of its BATCHes
static zmsg_t *
s_next_command (int slot, void *from, zsock_t *sock, int timeout)
{
    s_pending_t *pending = &s_pending [slot];
    if (!pending->commands) {
        pending->commands = zlist_new ();
        static bool purged_at_exit = false;     //  whichever slot is used first
        if (!purged_at_exit)
            atexit (s_pending_purge);
        purged_at_exit = true;
    }
    if (from != pending->from) {
        s_pending_clear (pending);
        pending->from = from;
    }
    if (zlist_size (pending->commands) == 0) {
        zpoller_t *poller = zpoller_new (sock, NULL);
        if (zpoller_wait (poller, timeout) == sock)
            drover_outbox_receive (sock, 0, s_pend, s_pend_record, pending->commands);
        zpoller_destroy (&poller);
    }
    return (zmsg_t *) zlist_pop (pending->commands);
}

//  Check a command's word; return the rest of it
static zmsg_t *
s_expect_word (zmsg_t *msg, const char *command)
{
    if (!msg)
        print_error ("expected %s, the actor said nothing in time\n", command);
    assert_non_null (msg);
    char *first = zmsg_popstr (msg);
    assert_non_null (first);
    if (!streq (first, command))
        print_error ("expected %s, actor said %s\n", command, first);
    assert_string_equal (first, command);
    zstr_free (&first);
    return msg;
}

//  Receive the actor's next command within timeout msec, one at a time
//  out of the BATCHes it says; NULL on timeout
zmsg_t *
testutil_actor_recv (zactor_t *actor, int timeout)
{
    return s_next_command (0, actor, zactor_sock (actor), timeout);
}

//  Receive the actor's next command and check its command word
zmsg_t *
testutil_expect (zactor_t *actor, const char *command, int timeout)
{
    return s_expect_word (testutil_actor_recv (actor, timeout), command);
}

//  Receive the next command said on a link within timeout msec; NULL if none
zmsg_t *
testutil_link_recv (zsock_t *link, int timeout)
{
    return s_next_command (1, link, link, timeout);
}

//  Receive the next command said on a link and check its command word
zmsg_t *
testutil_expect_link (zsock_t *link, const char *command, int timeout)
{
    return s_expect_word (s_next_command (1, link, link, timeout), command);
}

//  Bind the test's end of a link for an actor that connects to it
zsock_t *
testutil_link_bind (char *endpoint, size_t size)
{
    static int count = 0;
    snprintf (endpoint, size, "inproc://testutil-link-%d-%d", getpid (), ++count);
    zsock_t *link = zsock_new (ZMQ_PAIR);
    assert_non_null (link);
    assert_int_equal (zsock_bind (link, "%s", endpoint), 0);
    return link;
}

//  Pop a string frame and check it
void
testutil_pop_check (zmsg_t *msg, const char *expected)
{
    char *text = zmsg_popstr (msg);
    assert_non_null (text);
    assert_string_equal (text, expected);
    zstr_free (&text);
}

//  Expect SEND to route for worker; decode its payload
drover_msg_t *
testutil_expect_send (zactor_t *actor, const char *route, const char *worker)
{
    zmsg_t *msg = testutil_expect (actor, "SEND", 2000);
    testutil_pop_check (msg, route);
    zframe_t *payload = zmsg_pop (msg);
    assert_non_null (payload);
    testutil_pop_check (msg, worker);
    drover_msg_t *decoded = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (decoded, zframe_data (payload), zframe_size (payload)), 0);
    zframe_destroy (&payload);
    zmsg_destroy (&msg);
    return decoded;
}

//  Expect an EVENT with topic about worker
void
testutil_expect_event (zactor_t *actor, const char *topic, const char *worker, const char *reason)
{
    zmsg_t *msg = testutil_expect (actor, "EVENT", 2000);
    testutil_pop_check (msg, topic);
    zframe_t *body = zmsg_pop (msg);
    assert_non_null (body);
    drover_event_t event;
    assert_int_equal (drover_event_decode (&event, zframe_data (body), zframe_size (body)), 0);
    assert_string_equal (event.topic, topic);
    assert_string_equal (event.worker, worker);
    if (reason)
        assert_string_equal (event.reason, reason);
    assert_true (event.time > 0);
    zframe_destroy (&body);
    zmsg_destroy (&msg);
}

//  Send what outbox holds to an actor's pipe (or a link) as one BATCH
static void
s_flush_to (void *to, drover_outbox_t *outbox)
{
    zsock_t *sock = zactor_is (to)? zactor_sock ((zactor_t *) to): (zsock_t *) to;
    assert_int_equal (drover_outbox_flush (outbox, sock), 0);
}

//  Hand the actor a wire message from a route of route_size bytes
void
testutil_hand_bytes (zactor_t *actor, const byte *route, size_t route_size, drover_msg_t *msg)
{
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_msg (outbox, route, route_size, &msg);  //  the actor owns msg now
    s_flush_to (actor, outbox);
    drover_outbox_destroy (&outbox);
}

//  Hand the actor a wire message from route
void
testutil_hand (zactor_t *actor, const char *route, drover_msg_t *msg)
{
    testutil_hand_bytes (actor, (const byte *) route, strlen (route), msg);
}

//  Say QUEUE on a link in a BATCH, as assign does
void
testutil_say_queue (zsock_t *link, uint64_t task, int32_t priority, uint32_t procs,
                    uint64_t mem, const char *labels)
{
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_queue (outbox, task, priority, procs, mem, labels, NULL);
    testutil_say_batch (link, &outbox);
}

//  Send what an outbox holds as one BATCH, then destroy the outbox
void
testutil_say_batch (void *to, drover_outbox_t **outbox_p)
{
    s_flush_to (to, *outbox_p);
    drover_outbox_destroy (outbox_p);
}

//  Say FREE on a link in a BATCH, as assign does
void
testutil_say_free (zsock_t *link, uint64_t task)
{
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_free (outbox, task);
    testutil_say_batch (link, &outbox);
}

//  Say the record ASSIGN on a link to assign in a BATCH, as schedq does
void
testutil_say_assign (zsock_t *link, uint64_t task, const char *worker)
{
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_outbox_say_assign (outbox, task, worker);
    testutil_say_batch (link, &outbox);
}

//  Assert that msg's frames, read as text, are exactly the strings in args
void
testutil_assert_frames (zmsg_t **msg_p, va_list args)
{
    zmsg_t *msg = *msg_p;
    const char *expected;
    while ((expected = va_arg (args, const char *))) {
        char *frame = zmsg_popstr (msg);
        assert_non_null (frame);
        assert_string_equal (frame, expected);
        zstr_free (&frame);
    }
    assert_int_equal (zmsg_size (msg), 0);
    zmsg_destroy (msg_p);
}
