/*  =========================================================================
    test_drover_actor - the commands every actor accepts: EVENTS, VERBOSE
    and $TERM set the flags an actor keeps, each taking exactly its own
    frames; any other command is left to the actor, untouched
    =========================================================================
*/

#include "testutil.h"
#include "drover_actor.h"

//  Build a command as an actor reads it: its word already popped, its
//  frames left in the message, each as zsock_send writes them (a number
//  in decimal); NULL ends the list
static zmsg_t *
s_frames (const char *frame, ...)
{
    zmsg_t *msg = zmsg_new ();
    va_list args;
    va_start (args, frame);
    for (; frame; frame = va_arg (args, const char *))
        zmsg_addstr (msg, frame);
    va_end (args);
    return msg;
}

//  EVENTS 0 silences, EVENTS 1 speaks again; each takes its one frame
static void
test_events (void **state)
{
    drover_actor_flags_t flags = { 0 };
    zmsg_t *msg = s_frames ("0", "next", NULL);
    assert_true (drover_actor_handle_common (&flags, "EVENTS", msg));
    assert_true (flags.silent);
    assert_false (flags.verbose);
    assert_false (flags.stopping);
    assert_int_equal (zmsg_size (msg), 1);          //  only on(4) was taken
    zmsg_destroy (&msg);

    msg = s_frames ("1", NULL);
    assert_true (drover_actor_handle_common (&flags, "EVENTS", msg));
    assert_false (flags.silent);
    assert_int_equal (zmsg_size (msg), 0);
    zmsg_destroy (&msg);
}

//  VERBOSE and $TERM set their flag and take no frame
static void
test_verbose_and_term (void **state)
{
    drover_actor_flags_t flags = { 0 };
    zmsg_t *msg = s_frames ("next", NULL);
    assert_true (drover_actor_handle_common (&flags, "VERBOSE", msg));
    assert_true (flags.verbose);
    assert_false (flags.stopping);
    assert_true (drover_actor_handle_common (&flags, "$TERM", msg));
    assert_true (flags.stopping);
    assert_true (flags.verbose);
    assert_false (flags.silent);
    assert_int_equal (zmsg_size (msg), 1);
    zmsg_destroy (&msg);
}

//  An actor's own command (or a wrong one) is refused: no flag changes,
//  no frame is taken, so the actor can still read it or report it
static void
test_other_command_untouched (void **state)
{
    drover_actor_flags_t flags = { .silent = true };
    zmsg_t *msg = s_frames ("0", NULL);
    const char *others [] = { "CONFIGURE", "HEARD", "events", "VERBOSE ", "TERM", "" };
    for (size_t index = 0; index < sizeof others / sizeof others [0]; index++) {
        assert_false (drover_actor_handle_common (&flags, others [index], msg));
        assert_true (flags.silent);
        assert_false (flags.verbose);
        assert_false (flags.stopping);
        assert_int_equal (zmsg_size (msg), 1);
    }
    zmsg_destroy (&msg);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_events),
        cmocka_unit_test (test_verbose_and_term),
        cmocka_unit_test (test_other_command_untouched),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
