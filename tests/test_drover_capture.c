/*  =========================================================================
    test_drover_capture - one captured output stream, bounded

    Through a real non-blocking pipe: what is written is kept up to the
    bound, the rest is read and discarded (the writer never blocks), end
    of file closes the fd, and the bytes are handed over whole.
    =========================================================================
*/

#ifndef _GNU_SOURCE
#   define _GNU_SOURCE         //  pipe2
#endif
#include "testutil.h"
#include "drover_capture.h"
#include <fcntl.h>
#include <unistd.h>

#define S_SCRATCH   1024

//  Make a pipe whose read end is non-blocking; fds [1] is the write end
static void
s_pipe (int fds [2])
{
    assert_int_equal (pipe2 (fds, O_CLOEXEC), 0);
    assert_int_equal (fcntl (fds [0], F_SETFL, O_NONBLOCK), 0);
}

//  Bytes under the bound are kept as written; EOF closes the fd; take
//  hands them over and leaves nothing behind
static void
test_keeps_until_eof (void **state)
{
    int fds [2];
    s_pipe (fds);
    drover_capture_t *capture = drover_capture_new (fds [0], 100);
    byte scratch [S_SCRATCH];
    assert_int_equal (drover_capture_fd (capture), fds [0]);
    drover_capture_read (capture, scratch, sizeof scratch);     //  nothing yet
    assert_int_equal (drover_capture_fd (capture), fds [0]);
    assert_int_equal (write (fds [1], "hello ", 6), 6);
    drover_capture_read (capture, scratch, sizeof scratch);
    assert_int_equal (write (fds [1], "world", 5), 5);
    close (fds [1]);
    drover_capture_read (capture, scratch, sizeof scratch);
    assert_int_equal (drover_capture_fd (capture), -1);
    assert_false (drover_capture_truncated (capture));

    byte *data = NULL;
    size_t size = 0;
    drover_capture_take (capture, &data, &size);
    assert_int_equal (size, 11);
    assert_memory_equal (data, "hello world", 11);
    free (data);
    drover_capture_take (capture, &data, &size);
    assert_null (data);
    assert_int_equal (size, 0);
    drover_capture_destroy (&capture);
    assert_null (capture);
    drover_capture_destroy (&capture);       //  harmless twice
}

//  Past the bound the bytes are read and dropped, and the stream is
//  flagged truncated; drain empties the pipe and closes it even while
//  the writer still holds it open
static void
test_truncates_past_bound (void **state)
{
    int fds [2];
    s_pipe (fds);
    drover_capture_t *capture = drover_capture_new (fds [0], 10);
    byte scratch [S_SCRATCH];
    byte block [4000];
    memset (block, 'x', sizeof block);
    assert_int_equal (write (fds [1], block, sizeof block), (ssize_t) sizeof block);
    drover_capture_drain (capture, scratch, sizeof scratch);
    assert_int_equal (drover_capture_fd (capture), -1);
    assert_true (drover_capture_truncated (capture));
    //  The read end is closed: the writer gets EPIPE, it never blocks
    assert_int_equal (write (fds [1], block, 1), -1);
    assert_int_equal (errno, EPIPE);
    close (fds [1]);

    byte *data = NULL;
    size_t size = 0;
    drover_capture_take (capture, &data, &size);
    assert_int_equal (size, 10);
    assert_memory_equal (data, block, 10);
    free (data);
    drover_capture_destroy (&capture);
}

//  A capture that kept nothing hands over nothing, and closes its fd when
//  destroyed
static void
test_empty_and_destroy_closes (void **state)
{
    int fds [2];
    s_pipe (fds);
    drover_capture_t *capture = drover_capture_new (fds [0], 100);
    byte *data = (byte *) "not touched";
    size_t size = 7;
    drover_capture_take (capture, &data, &size);
    assert_null (data);
    assert_int_equal (size, 0);
    drover_capture_destroy (&capture);
    assert_int_equal (fcntl (fds [0], F_GETFD), -1);        //  closed
    close (fds [1]);
}

int
main (void)
{
    signal (SIGPIPE, SIG_IGN);          //  the EPIPE write above
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_keeps_until_eof),
        cmocka_unit_test (test_truncates_past_bound),
        cmocka_unit_test (test_empty_and_destroy_closes),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
