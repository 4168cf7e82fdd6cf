/*  =========================================================================
    drover_benchmark_msgfloor - what libzmq alone costs to carry one
    message, the floor under every message a task makes

    Two ZeroMQ contexts in this process, each with its own I/O thread, as a
    broker and an agent have: a DEALER bound on loopback TCP and one
    connected to it, bouncing one small message back and forth, each side
    waiting for the other as a task's OFFER and RESULT do. The CPU of the
    whole process over the bounces, per message one way, counts both
    application threads, both I/O threads and the kernel's TCP work and
    wake-ups, and nothing of drover. An inproc PAIR bounce between two
    threads gives the same for one hop between actors.

    One process rather than two spares the address-space switches a real
    agent and broker pay, so the figures are if anything below what two
    processes cost.
    =========================================================================
*/

#include "drover_cli.h"
#include "drover_benchmark.h"
#include <pthread.h>
#include <sys/resource.h>

#define S_MESSAGE_SIZE  64          //  bytes of the bounced message, about an OFFER's
#define S_TIMEOUT       5000        //  msec a side waits for the other's message

//  One side of a bounce: a socket and how many messages it answers
typedef struct {
    void *socket;                   //  its end, connected (owned by its context)
    long long answers;              //  messages to send back
    int rc;                         //  0, or -1 if a send or receive failed
} s_echo_t;

//  CPU usec this process (all its threads) has used so far
static int64_t
s_process_cpu (void)
{
    struct rusage usage;
    getrusage (RUSAGE_SELF, &usage);
    return (int64_t) usage.ru_utime.tv_sec * 1000000 + usage.ru_utime.tv_usec
         + (int64_t) usage.ru_stime.tv_sec * 1000000 + usage.ru_stime.tv_usec;
}

//  Give a socket of a bounce no linger and a receive timeout
static void
s_socket_set (void *socket)
{
    int linger = 0, timeout = S_TIMEOUT;
    zmq_setsockopt (socket, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt (socket, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
}

//  Send back every message received, answers times
static void *
s_echo (void *args)
{
    s_echo_t *self = (s_echo_t *) args;
    byte buffer [S_MESSAGE_SIZE];
    for (long long index = 0; index < self->answers && self->rc == 0; index++) {
        int size = zmq_recv (self->socket, buffer, sizeof buffer, 0);
        if (size < 0 || zmq_send (self->socket, buffer, (size_t) size, 0) != size)
            self->rc = -1;
    }
    return NULL;
}

//  Bounce a message bounces times between first and the echo thread on
//  second. Returns CPU usec per message one way, or -1.
static double
s_bounce (void *first, void *second, long long bounces)
{
    s_echo_t echo = { .socket = second, .answers = bounces + 1, .rc = 0 };
    pthread_t thread;
    if (pthread_create (&thread, NULL, s_echo, &echo))
        return -1;
    byte buffer [S_MESSAGE_SIZE] = { 0 };
    int rc = 0;
    //  One bounce first: the connection made and both sides awake
    if (zmq_send (first, buffer, sizeof buffer, 0) < 0
    ||  zmq_recv (first, buffer, sizeof buffer, 0) < 0)
        rc = -1;
    int64_t started = s_process_cpu ();
    for (long long index = 0; index < bounces && rc == 0; index++)
        if (zmq_send (first, buffer, sizeof buffer, 0) < 0
        ||  zmq_recv (first, buffer, sizeof buffer, 0) < 0)
            rc = -1;
    int64_t used = s_process_cpu () - started;
    if (rc)
        zsys_error ("drover bench: message floor: %s", zmq_strerror (zmq_errno ()));
    //  A failed bounce leaves the echo waiting until its receive times out
    pthread_join (thread, NULL);
    return rc || echo.rc? -1: (double) used / (2.0 * (double) bounces);
}

//  CPU usec per message one way over loopback TCP between two contexts,
//  measured over bounces round trips; -1 if it could not be measured
double
drover_benchmark_tcp_message_cpu (long long bounces)
{
    void *near_context = zmq_ctx_new ();
    void *far_context = zmq_ctx_new ();
    void *near = zmq_socket (near_context, ZMQ_DEALER);
    void *far = zmq_socket (far_context, ZMQ_DEALER);
    s_socket_set (near);
    s_socket_set (far);
    char endpoint [256] = "";
    size_t size = sizeof endpoint;
    double cpu = -1;
    if (zmq_bind (near, "tcp://127.0.0.1:*") == 0
    &&  zmq_getsockopt (near, ZMQ_LAST_ENDPOINT, endpoint, &size) == 0
    &&  zmq_connect (far, endpoint) == 0)
        cpu = s_bounce (near, far, bounces);
    zmq_close (near);
    zmq_close (far);
    zmq_ctx_term (near_context);
    zmq_ctx_term (far_context);
    return cpu;
}

//  CPU usec per message one way between two threads over inproc, measured
//  over bounces round trips; -1 if it could not be measured
double
drover_benchmark_inproc_hop_cpu (long long bounces)
{
    void *context = zmq_ctx_new ();
    void *near = zmq_socket (context, ZMQ_PAIR);
    void *far = zmq_socket (context, ZMQ_PAIR);
    s_socket_set (near);
    s_socket_set (far);
    double cpu = -1;
    if (zmq_bind (near, "inproc://drover-bench-hop") == 0
    &&  zmq_connect (far, "inproc://drover-bench-hop") == 0)
        cpu = s_bounce (near, far, bounces);
    zmq_close (near);
    zmq_close (far);
    zmq_ctx_term (context);
    return cpu;
}
