/*  =========================================================================
    test_drover_poller - the poller wakes for input that comes while its
    sockets are drained, never sleeps while one may hold unread input, and
    drover_actor_read / drover_actor_flush keep its flags as the rules say;
    it watches plain fds beside the sockets for one wait, and a slot takes
    a socket destroyed and created again
    =========================================================================
*/

#include "testutil.h"
#include "drover_actor.h"
#include "drover_poller.h"
#include <unistd.h>
#include <poll.h>

#define S_WAIT_MAX      5000    //  msec a test waits for an event at most

//  Count the commands a read hands over
static void
s_count (void *arg, zmsg_t *command)
{
    (*(int *) arg)++;
}

//  Wait until the socket at index may hold input, or S_WAIT_MAX passes;
//  returns true if it came
static bool
s_wait_readable (drover_poller_t *poller, size_t index)
{
    int64_t deadline = zclock_mono () + S_WAIT_MAX;
    while (!drover_poller_readable (poller, index) && zclock_mono () < deadline)
        assert_int_equal (drover_poller_wait (poller, (int) (deadline - zclock_mono ())), 0);
    return drover_poller_readable (poller, index);
}

//  A new socket counts as unread; once drained, a wait with nothing sent
//  times out; a message sent then wakes it
static void
test_wakes_on_input (void **state)
{
    zsock_t *reader = zsock_new_pair ("@inproc://test-poller-wake");
    zsock_t *writer = zsock_new_pair (">inproc://test-poller-wake");
    assert_non_null (reader);
    assert_non_null (writer);
    drover_poller_t *poller = drover_poller_new ();
    assert_int_equal (drover_poller_add (poller, reader), 0);
    assert_true (drover_poller_readable (poller, 0));

    int commands = 0;
    assert_int_equal (drover_actor_read (poller, reader, NULL, s_count, NULL, &commands), 0);
    assert_false (drover_poller_readable (poller, 0));      //  drained
    int64_t started = zclock_mono ();
    assert_int_equal (drover_poller_wait (poller, 50), 0);
    assert_true (zclock_mono () - started >= 40);           //  it slept
    assert_false (drover_poller_readable (poller, 0));

    zstr_send (writer, "PING");
    assert_true (s_wait_readable (poller, 0));
    assert_int_equal (drover_actor_read (poller, reader, NULL, s_count, NULL, &commands), 1);
    assert_int_equal (commands, 1);
    assert_false (drover_poller_readable (poller, 0));

    drover_poller_destroy (&poller);
    drover_poller_destroy (&poller);                        //  harmless twice
    zsock_destroy (&writer);
    zsock_destroy (&reader);
}

//  While a socket may hold unread input the wait does not sleep, and a
//  send marks its socket unread again
static void
test_never_sleeps_on_unread (void **state)
{
    zsock_t *reader = zsock_new_pair ("@inproc://test-poller-unread");
    zsock_t *writer = zsock_new_pair (">inproc://test-poller-unread");
    drover_poller_t *poller = drover_poller_new ();
    drover_poller_add (poller, reader);
    int64_t started = zclock_mono ();
    assert_int_equal (drover_poller_wait (poller, 2000), 0);
    assert_true (zclock_mono () - started < 1000);          //  did not sleep
    drover_poller_drained (poller, 0);
    drover_poller_sent (poller, 0);
    assert_true (drover_poller_readable (poller, 0));
    started = zclock_mono ();
    assert_int_equal (drover_poller_wait (poller, 2000), 0);
    assert_true (zclock_mono () - started < 1000);

    //  A flush on a watched socket marks it unread, and its BATCH arrives
    drover_outbox_t *outbox = drover_outbox_new ();
    drover_poller_t *writing = drover_poller_new ();
    drover_poller_add (writing, writer);
    drover_poller_drained (writing, 0);
    drover_actor_flush (writing, 0, outbox, writer);         //  empty: nothing sent
    assert_false (drover_poller_readable (writing, 0));
    drover_outbox_say (outbox, "s8", "FREE", (uint64_t) 7);
    drover_outbox_say (outbox, "s8", "FREE", (uint64_t) 8);
    drover_actor_flush (writing, 0, outbox, writer);
    assert_true (drover_poller_readable (writing, 0));
    int commands = 0;
    assert_true (s_wait_readable (poller, 0));
    assert_int_equal (drover_actor_read (poller, reader, NULL, s_count, NULL, &commands), 1);
    assert_int_equal (commands, 2);

    drover_outbox_destroy (&outbox);
    drover_poller_destroy (&writing);
    drover_poller_destroy (&poller);
    zsock_destroy (&writer);
    zsock_destroy (&reader);
}

//  drover_actor_read reads the pipe before the link, and a read caps at
//  DROVER_PIPE_BATCHES messages a socket, leaving the rest unread
static void
test_pipe_then_link (void **state)
{
    zsock_t *pipe = zsock_new_pair ("@inproc://test-poller-pipe");
    zsock_t *pipe_writer = zsock_new_pair (">inproc://test-poller-pipe");
    zsock_t *link = zsock_new_pair ("@inproc://test-poller-link");
    zsock_t *link_writer = zsock_new_pair (">inproc://test-poller-link");
    drover_poller_t *poller = drover_poller_new ();
    assert_int_equal (drover_poller_add (poller, pipe), DROVER_PIPE_AT);
    assert_int_equal (drover_poller_add (poller, link), DROVER_LINK_AT);
    for (int count = 0; count < DROVER_PIPE_BATCHES + 1; count++)
        zstr_send (pipe_writer, "UP");
    zstr_send (link_writer, "QUEUE");
    //  inproc sends are in the reader's pipes at once: one read takes the
    //  capped share of the pipe, then the link; the next, the rest
    int commands = 0;
    assert_int_equal (drover_actor_read (poller, pipe, link, s_count, NULL, &commands),
                      DROVER_PIPE_BATCHES + 1);
    assert_true (drover_poller_readable (poller, DROVER_PIPE_AT));      //  capped
    assert_false (drover_poller_readable (poller, DROVER_LINK_AT));     //  drained
    assert_int_equal (drover_actor_read (poller, pipe, link, s_count, NULL, &commands), 1);
    assert_int_equal (commands, DROVER_PIPE_BATCHES + 2);
    assert_false (drover_poller_readable (poller, DROVER_PIPE_AT));
    drover_poller_destroy (&poller);
    zsock_destroy (&link_writer);
    zsock_destroy (&link);
    zsock_destroy (&pipe_writer);
    zsock_destroy (&pipe);
}

//  Read every message the socket at index holds, as the poller's callers
//  do: until EAGAIN, then mark it drained. Returns how many were read.
static int
s_drain (drover_poller_t *poller, size_t index, zsock_t *sock)
{
    int count = 0;
    while (true) {
        zmq_msg_t frame;
        zmq_msg_init (&frame);
        int rc = zmq_msg_recv (&frame, zsock_resolve (sock), ZMQ_DONTWAIT);
        zmq_msg_close (&frame);
        if (rc == -1)
            break;
        count++;
    }
    assert_int_equal (zmq_errno (), EAGAIN);
    drover_poller_drained (poller, index);
    return count;
}

//  Return true if a wait of msec slept about that long
static bool
s_wait_sleeps (drover_poller_t *poller, int msec)
{
    int64_t started = zclock_mono ();
    assert_int_equal (drover_poller_wait (poller, msec), 0);
    return zclock_mono () - started >= msec * 4 / 5;
}

//  A plain fd listed for a wait is watched beside the sockets, its item's
//  revents say what poll(2) saw, as zmq_poll would; it is watched in that
//  wait only, an unused item (fd -1) not at all, and the room grows
static void
test_watches_plain_fds (void **state)
{
    zsock_t *reader = zsock_new_pair ("@inproc://test-poller-plain");
    zsock_t *writer = zsock_new_pair (">inproc://test-poller-plain");
    drover_poller_t *poller = drover_poller_new ();
    drover_poller_add (poller, reader);
    assert_int_equal (s_drain (poller, 0, reader), 0);
    int fds [2];
    assert_int_equal (pipe (fds), 0);

    //  Nothing written: the wait sleeps its time, and says nothing
    zmq_pollitem_t *items = drover_poller_items (poller, 2);
    assert_non_null (items);
    assert_int_equal (items [0].fd, -1);
    assert_int_equal (items [1].fd, -1);
    items [0] = (zmq_pollitem_t) { NULL, fds [0], ZMQ_POLLIN, 0 };
    assert_true (s_wait_sleeps (poller, 50));
    assert_int_equal (items [0].revents, 0);
    assert_int_equal (items [1].revents, 0);

    //  A byte written wakes the wait, and shows on its item only
    assert_int_equal (write (fds [1], "x", 1), 1);
    items = drover_poller_items (poller, 2);
    items [1] = (zmq_pollitem_t) { NULL, fds [0], ZMQ_POLLIN, 0 };
    assert_false (s_wait_sleeps (poller, S_WAIT_MAX));
    assert_int_equal (items [0].revents, 0);
    assert_int_equal (items [1].revents, ZMQ_POLLIN);
    assert_false (drover_poller_readable (poller, 0));      //  the socket got nothing

    //  Not listed again, the fd is not watched, though it is still ready
    assert_true (s_wait_sleeps (poller, 50));

    //  Many items: the room grows; the last one's fd still wakes the wait
    size_t many = DROVER_POLLER_MAX * 8;
    items = drover_poller_items (poller, many);
    for (size_t index = 0; index < many - 1; index++)
        assert_int_equal (items [index].fd, -1);
    items [many - 1] = (zmq_pollitem_t) { NULL, fds [0], ZMQ_POLLIN, 0 };
    assert_false (s_wait_sleeps (poller, S_WAIT_MAX));
    assert_int_equal (items [many - 1].revents, ZMQ_POLLIN);
    assert_int_equal (items [0].revents, 0);

    //  A socket still wakes a wait that watches plain fds (none ready)
    char byte;
    assert_int_equal (read (fds [0], &byte, 1), 1);
    items = drover_poller_items (poller, 1);
    items [0] = (zmq_pollitem_t) { NULL, fds [0], ZMQ_POLLIN, 0 };
    zstr_send (writer, "PING");
    assert_false (s_wait_sleeps (poller, S_WAIT_MAX));
    assert_true (drover_poller_readable (poller, 0));
    assert_int_equal (items [0].revents, 0);
    assert_int_equal (s_drain (poller, 0, reader), 1);

    //  The writer closed: the item says so, as zmq_poll would (POLLHUP)
    close (fds [1]);
    items = drover_poller_items (poller, 1);
    items [0] = (zmq_pollitem_t) { NULL, fds [0], ZMQ_POLLIN, 0 };
    assert_false (s_wait_sleeps (poller, S_WAIT_MAX));
    assert_true (items [0].revents & ZMQ_POLLERR);

    close (fds [0]);
    drover_poller_destroy (&poller);
    zsock_destroy (&writer);
    zsock_destroy (&reader);
}

//  A slot added empty is never readable nor watched; drover_poller_set
//  fills it with a socket that starts unread, empties it as the socket is
//  destroyed, and takes the one created in its place (the worker's DEALER
//  on each reconnect)
static void
test_set_replaces_socket (void **state)
{
    drover_poller_t *poller = drover_poller_new ();
    assert_int_equal (drover_poller_add (poller, NULL), 0);
    assert_false (drover_poller_readable (poller, 0));
    assert_true (s_wait_sleeps (poller, 50));
    assert_false (drover_poller_readable (poller, 0));

    zsock_t *reader = zsock_new_pair ("@inproc://test-poller-set-1");
    zsock_t *writer = zsock_new_pair (">inproc://test-poller-set-1");
    drover_poller_set (poller, 0, reader);
    assert_true (drover_poller_readable (poller, 0));
    assert_int_equal (s_drain (poller, 0, reader), 0);
    zstr_send (writer, "PING");
    assert_true (s_wait_readable (poller, 0));
    assert_int_equal (s_drain (poller, 0, reader), 1);

    //  The socket goes: the slot is empty again, a wait sleeps
    drover_poller_set (poller, 0, NULL);
    zsock_destroy (&writer);
    zsock_destroy (&reader);
    assert_false (drover_poller_readable (poller, 0));
    assert_true (s_wait_sleeps (poller, 50));
    assert_false (drover_poller_readable (poller, 0));

    //  Created again: watched from the start, unread until drained
    reader = zsock_new_pair ("@inproc://test-poller-set-2");
    writer = zsock_new_pair (">inproc://test-poller-set-2");
    drover_poller_set (poller, 0, reader);
    assert_true (drover_poller_readable (poller, 0));
    assert_false (s_wait_sleeps (poller, S_WAIT_MAX));
    assert_int_equal (s_drain (poller, 0, reader), 0);
    assert_true (s_wait_sleeps (poller, 50));
    zstr_send (writer, "PONG");
    assert_true (s_wait_readable (poller, 0));
    assert_int_equal (s_drain (poller, 0, reader), 1);

    drover_poller_destroy (&poller);
    zsock_destroy (&writer);
    zsock_destroy (&reader);
}

//  A wait right after a send on a drained socket spares its poll(2) (that
//  socket is read first, and is most often empty), but never two waits
//  running: a loop that sends on one socket every turn still hears the
//  others by its second wait
static void
test_send_every_turn_hears_the_others (void **state)
{
    zsock_t *sending = zsock_new_pair ("@inproc://test-poller-sending");
    zsock_t *sending_peer = zsock_new_pair (">inproc://test-poller-sending");
    zsock_t *other = zsock_new_pair ("@inproc://test-poller-other");
    zsock_t *other_writer = zsock_new_pair (">inproc://test-poller-other");
    drover_poller_t *poller = drover_poller_new ();
    assert_int_equal (drover_poller_add (poller, sending), 0);
    assert_int_equal (drover_poller_add (poller, other), 1);
    assert_int_equal (drover_actor_drain (poller, 0, sending, 8, s_count, NULL, NULL, NULL), 0);
    assert_int_equal (drover_actor_drain (poller, 1, other, 8, s_count, NULL, NULL, NULL), 0);

    zstr_send (other_writer, "PING");
    struct pollfd signalled = { zsock_fd (other), POLLIN, 0 };
    assert_int_equal (poll (&signalled, 1, S_WAIT_MAX), 1);     //  its fd says so

    int heard_at = 0;           //  the wait that found other readable
    int commands = 0;
    for (int turn = 1; turn <= 4 && !heard_at; turn++) {
        zstr_send (sending, "TICK");
        drover_poller_sent (poller, 0);
        assert_int_equal (drover_poller_wait (poller, S_WAIT_MAX), 0);
        if (drover_poller_readable (poller, 1))
            heard_at = turn;
        assert_int_equal (drover_actor_drain (poller, 0, sending, 8, s_count, NULL,
                                             NULL, &commands), 0);
    }
    assert_int_equal (heard_at, 2);     //  the first wait read `sending` only
    assert_int_equal (drover_actor_drain (poller, 1, other, 8, s_count, NULL, NULL, &commands), 1);
    assert_int_equal (commands, 1);

    drover_poller_destroy (&poller);
    zsock_destroy (&other_writer);
    zsock_destroy (&other);
    zsock_destroy (&sending_peer);
    zsock_destroy (&sending);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_wakes_on_input),
        cmocka_unit_test (test_never_sleeps_on_unread),
        cmocka_unit_test (test_pipe_then_link),
        cmocka_unit_test (test_watches_plain_fds),
        cmocka_unit_test (test_set_replaces_socket),
        cmocka_unit_test (test_send_every_turn_hears_the_others),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
