/*  =========================================================================
    drover_client_internal - what the client's source files share

    The client (include/drover/drover_client.h) is one object in several files,
    one concern each: drover_client.c has the object, sending and
    receiving, and routing what comes in; drover_client_move.c has moving
    between brokers; drover_client_submit.c has submitting (one at a
    time, or many through the window of async slots); drover_client_wait.c
    has waiting for TASK DONEs. Not an API: only those files include
    this (the requests, drover_client_requests.c, need only
    drover_client_wire.h).
    =========================================================================
*/

#ifndef DROVER_CLIENT_INTERNAL_H_INCLUDED
#define DROVER_CLIENT_INTERNAL_H_INCLUDED

#include "drover_client_wire.h"
#include "drover_poller.h"
#include "drover_waitset.h"
#include "drover_handshake.h"
#include "drover_endpoints.h"
#include "drover_serverkeys.h"

//  The dealer's index in the poller
#define S_DEALER_AT         0
//  Its handshake monitor's
#define S_MONITOR_AT        1

//  One async submit waiting for its reply
typedef struct {
    uint32_t seq;               //  request seq, 0 if the slot is free
    uintptr_t tag;              //  the caller's tag
    zframe_t *frame;            //  the encoded submit when it has a key (sent again
                                //  after a silence), or when the client may move
                                //  between brokers (sent again to the next), else NULL; owned
    bool keyed;                 //  the submit has a key: sending it twice is harmless
    uint64_t sent_in;           //  the client's moves when it was last sent
    bool sent_up;               //  the connection was up when it was sent
    uint64_t sent_connects;     //  the connection's handshakes then
    bool maybe_taken;           //  the broker we left may have accepted it
} drover_client_slot_t;

//  The wait in progress
typedef struct {
    drover_waitset_t *tasks;    //  the tasks waited on, which were delivered, the WAITs' seqs, owned
    drover_client_done_fn *on_done;     //  caller's handler, or NULL
    void *arg;                  //  its argument
    bool progressed;            //  a task was delivered since the last check
    bool failed;                //  the broker refused a WAIT; error is set
} drover_client_waiting_t;

struct _drover_client_t {
    char *endpoint;             //  the broker ROUTER endpoint we talk to now, owned
    drover_endpoints_t *endpoints;  //  the brokers we may talk to, and which next, owned
    uint64_t moves;             //  times we moved to another broker (or asked one again)
    uint64_t served_in;         //  moves when a broker last answered as one that serves
    bool move_due;              //  a REDIRECT came: move once this batch is read
    int move_delay;             //  msec to wait after that move before sending again
    int64_t resend_due;         //  msec (mono) to send again what the old broker had, 0 none
    zframe_t *awaited_frame;    //  the synchronous request in flight, encoded, owned
    uint64_t awaited_sent_in;   //  moves when it was last sent
    bool awaited_up;            //  the connection was up when it was sent
    uint64_t awaited_connects;  //  the connection's handshakes then
    bool awaited_maybe_taken;   //  the broker we left may have acted on it
    bool awaited_lost;          //  it cannot go again (an unkeyed SUBMIT) and its broker left
    zsock_t *dealer;            //  our one socket to the broker
    void *handle;               //  its libzmq handle, for zmq_msg_recv
    drover_poller_t *poller;    //  the dealer, at S_DEALER_AT, its monitor at S_MONITOR_AT
    drover_handshake_t *handshake;  //  watches the dealer's handshakes, owned
    zcert_t *pair;              //  our CURVE key pair (set_keys), or NULL: plain
    drover_serverkeys_t *serverkeys;    //  the brokers' public keys, with pair, owned
    int timeout;                //  msec for a reply
    int resend;                 //  msec of silence before WAIT (or a keyed SUBMIT) goes again
    uint32_t seq;               //  last request seq used
    char state_id [DROVER_STATE_ID_SIZE + 1];   //  the broker's, from the last TASK
                                    //  ACCEPTED that had one, sent in WAIT; "" if none
    drover_msg_t *inbox;        //  reused to decode each incoming frame
    uint64_t received;          //  frames received, ever
    uint64_t malformed;         //  frames that did not decode
    uint64_t dropped;           //  replies nobody waited for
    int error_code;             //  last error: broker code or DROVER_CLIENT_ERR_*
    char error_text [DROVER_REASON_MAX + 160];  //  last error's text
    uint32_t awaited;           //  seq of the synchronous request in flight, or 0
    bool hello_said;            //  a CLIENT HELLO went on this dealer
    uint64_t hello_connects;    //  the dealer's handshakes when it went
    int broker_level;           //  the broker's protocol level (CLIENT WELCOME), 0 not heard
    drover_msg_t *reply;        //  its reply, once in
    drover_client_ack_fn *ack_handler;  //  async submit replies go here
    void *ack_arg;              //  its argument
    drover_client_done_fn *done_handler;    //  NOTIFY TASK DONEs no wait takes, or NULL
    void *done_arg;             //  its argument
    bool in_handler;            //  a handler runs: it must not call us
    drover_client_slot_t *slots;    //  async submits outstanding, by seq % window
    uint32_t window;            //  slots
    size_t outstanding;         //  slots taken
    drover_client_waiting_t *wait;  //  the wait in progress, or NULL
    zlistx_t *kept;             //  TASK DONEs that came before anyone waited
    size_t kept_bytes;          //  output bytes in kept
    uint64_t kept_dropped;      //  TASK DONEs not kept for lack of room
};

//  In drover_client.c

//  Say that the broker did not answer in time
void
    drover_client_set_timeout_error (drover_client_t *self);

//  Drop the dealer and its handshake monitor
void
    drover_client_disconnect (drover_client_t *self);

//  Create the dealer (a CURVE client with the keys, if set), watch its
//  handshakes and connect it. Returns 0, or -1 if ZeroMQ does not
//  understand the endpoint or, with keys, no broker key is known for it
//  (the client then has no dealer).
int
    drover_client_connect (drover_client_t *self);

//  Connect the dealer if the client has none (it connects on its first
//  use). Returns 0, or -1 with the error set.
int
    drover_client_ensure_connected (drover_client_t *self);

//  Take the next request seq; never 0, which TASK DONE uses for notifies
uint32_t
    drover_client_next_seq (drover_client_t *self);

//  Encode and send one request. Returns 0 or -1 with the error set.
int
    drover_client_send_msg (drover_client_t *self, drover_msg_t *request);

//  Send an encoded request again (a copy of frame). Returns 0 or -1 with
//  the error set.
int
    drover_client_send_again (drover_client_t *self, zframe_t *frame);

//  Wait up to msec for something from the broker, then handle all that
//  has arrived (up to a batch). Returns frames handled, 0 on timeout (or
//  when what woke us was not a message), or -1 with the error set if
//  interrupted or the broker refused our handshake.
int
    drover_client_receive (drover_client_t *self, int msec);

//  Milliseconds left until deadline, at least 0, at most INT_MAX
int
    drover_client_msec_left (int64_t deadline);

//  In drover_client_move.c

//  True if the client may move between brokers: it has several, or a
//  REDIRECT sent it to one not in its list
bool
    drover_client_may_move (drover_client_t *self);

//  Note in *up_p and *connects_p whether the connection is up now and its
//  handshakes so far, for a request about to go (with several brokers: a
//  request sent while the connection was down, and not up since, cannot
//  have reached the broker, and may go to the next one)
void
    drover_client_note_link (drover_client_t *self, bool *up_p, uint64_t *connects_p);

//  The broker said nothing for a request's timeout: if the client may
//  move, and has not been trying for DROVER_CLIENT_FAILOVER since started,
//  move to the next broker and return true (the caller waits anew); else
//  false (the caller gives up)
bool
    drover_client_move_on_silence (drover_client_t *self, int64_t started);

//  A REDIRECT came: move once the batch is read (the first one decides)
void
    drover_client_redirected (drover_client_t *self, drover_msg_t *redirect);

//  Move if a REDIRECT came, or if the connection has been down for
//  DEAD_AFTER and there is another broker to try
void
    drover_client_move_when_due (drover_client_t *self);

//  Return when the client must next act by itself (send again after a
//  move, or check a connection that is down), 0 if never
int64_t
    drover_client_wake_at (drover_client_t *self);

//  After a move, once its delay has passed: send again what the broker we
//  left had not answered. A request that may not go twice (a SUBMIT
//  without a key) fails instead, unless that broker redirected.
void
    drover_client_resend_when_due (drover_client_t *self);

//  In drover_client_submit.c

//  An async submit's reply arrived (ACCEPTED or ERROR)
void
    drover_client_dispatch_ack (drover_client_t *self, drover_client_slot_t *slot);

//  End an async submit without a reply from a broker: its handler hears
//  code and reason, and the slot is free
void
    drover_client_fail_slot (drover_client_t *self, drover_client_slot_t *slot, int code,
                             const char *reason);

//  In drover_client_wait.c

//  A TASK DONE arrived
void
    drover_client_dispatch_done (drover_client_t *self);

#endif
