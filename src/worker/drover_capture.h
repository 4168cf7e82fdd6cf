/*  =========================================================================
    drover_capture - one captured output stream of a task, bounded

    Reads a non-blocking pipe (a task's stdout or stderr) into a buffer
    bounded at a size the caller gives (DROVER_OUTPUT_MAX for the runner);
    past that it keeps reading and discarding into the caller's scratch, so
    the task never blocks on a full pipe, and notes the stream truncated.
    At the end the buffer is handed over whole, to a TASK RESULT.
    =========================================================================
*/

#ifndef DROVER_CAPTURE_H_INCLUDED
#define DROVER_CAPTURE_H_INCLUDED

#include <czmq.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _drover_capture_t drover_capture_t;

//  Create a capture reading fd (non-blocking; the capture owns it now),
//  keeping at most max bytes
drover_capture_t *
    drover_capture_new (int fd, size_t max);

//  Destroy a capture: close its fd if still open, free what it kept;
//  harmless on NULL
void
    drover_capture_destroy (drover_capture_t **self_p);

//  Return the fd to poll for reading, or -1 once closed (end of file)
int
    drover_capture_fd (drover_capture_t *self);

//  Read what the pipe holds now, up to a few reads so one busy writer
//  cannot hold the loop; bytes past the bound go to scratch (scratch_size
//  bytes) and are lost. Closes the fd at end of file.
void
    drover_capture_read (drover_capture_t *self, byte *scratch, size_t scratch_size);

//  Read what is left after the writer exited, then close the fd even if a
//  grandchild still holds the pipe open
void
    drover_capture_drain (drover_capture_t *self, byte *scratch, size_t scratch_size);

//  Return true if bytes were read past the bound and discarded
bool
    drover_capture_truncated (drover_capture_t *self);

//  Hand what was kept over to the caller: *data_p (caller frees it; NULL
//  if nothing was kept) and *size_p. The capture keeps nothing after.
void
    drover_capture_take (drover_capture_t *self, byte **data_p, size_t *size_p);

#ifdef __cplusplus
}
#endif

#endif
