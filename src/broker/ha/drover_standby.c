/*  =========================================================================
    drover_standby - a broker that does not serve: every request is
    answered REDIRECT, naming the leader

    Reads the ROUTER as the broker does (a routing id frame, then one
    payload frame; more frames make it a malformed message), without
    blocking, at most S_BATCH messages a call so a flood cannot starve
    the caller's other sockets. Replies go with ZMQ_DONTWAIT: a peer that
    does not read loses its REDIRECT, and asks again.

    Before answering, at most every S_CHECK_EVERY msec, it checks that
    something still listens at the leader's endpoint (drover_reach): a
    leader killed keeps its election key until its lease ends, and would
    be named to every peer meanwhile. While its endpoint refuses
    connections the standby names no leader (peers try the next broker of
    their list, or wait); a check costs at most S_CHECK_WAIT msec, paid
    only while peers ask.
    =========================================================================
*/

#include "drover_standby.h"
#include "drover_reach.h"
#include "drover_msg.h"
#include "drover_peerlevels.h"

//  Messages read at most per call
#define S_BATCH         1024
//  Msec between two checks of the leader's endpoint, at least, and a
//  check's wait at most
#define S_CHECK_EVERY   500
#define S_CHECK_WAIT    50

struct _drover_standby_t {
    zsock_t *router;            //  the ROUTER we answer on (borrowed)
    char leader [DROVER_ENDPOINT_MAX + 1];  //  the leader's endpoint, "" unknown
    char leader_name [DROVER_ID_MAX + 1];   //  its name, "" unknown
    uint64_t redirects;         //  REDIRECTs sent
    uint64_t malformed;         //  messages that did not decode
    uint64_t unsent;            //  replies the router refused (peer gone, not reading)
    int64_t warned_at;          //  msec (mono) of the last bad-input warning
    drover_queuetable_t *queues;    //  what QUEUES is answered: the owner's copy, or empty
    drover_peerlevels_t *levels;    //  each peer connection's protocol level (borrowed,
                                    //  or owned_levels)
    drover_peerlevels_t *owned_levels;  //  our own table, when the caller gave none
    char name [DROVER_ID_MAX + 1];  //  this broker's name, for CLIENT WELCOME; "" none
    drover_reach_t *reach;      //  checks the leader's endpoint, or NULL (none, or not TCP)
    int64_t check_at;           //  msec (mono) of the next check
    bool leader_gone;           //  the leader's endpoint refused the last check
};


//  Create a standby over router
drover_standby_t *
drover_standby_new (zsock_t *router, drover_peerlevels_t *levels)
{
    assert (router);
    drover_standby_t *self = (drover_standby_t *) zmalloc (sizeof (drover_standby_t));
    self->router = router;
    self->warned_at = -1000000;
    self->queues = drover_queuetable_new ("");
    if (!levels)
        levels = self->owned_levels = drover_peerlevels_new (DROVER_PEERLEVELS_KEPT);
    self->levels = levels;
    return self;
}

//  Destroy the standby
void
drover_standby_destroy (drover_standby_t **self_p)
{
    assert (self_p);
    if (*self_p) {
        drover_queuetable_destroy (&(*self_p)->queues);
        drover_peerlevels_destroy (&(*self_p)->owned_levels);
        drover_reach_destroy (&(*self_p)->reach);
        free (*self_p);
        *self_p = NULL;
    }
}

//  Set this broker's own name, which CLIENT WELCOME says ("" none)
void
drover_standby_set_name (drover_standby_t *self, const char *name)
{
    assert (self);
    snprintf (self->name, sizeof self->name, "%s", name && drover_id_valid (name)? name: "");
}

//  Set the leader that REDIRECTs name
void
drover_standby_set_leader (drover_standby_t *self, const char *name, const char *endpoint)
{
    assert (self);
    if (!name || strlen (name) > DROVER_ID_MAX)
        name = "";
    if (!endpoint || strlen (endpoint) > DROVER_ENDPOINT_MAX)
        endpoint = "";
    if (streq (endpoint, self->leader) && streq (name, self->leader_name))
        return;                 //  the same: keep what the checks found
    snprintf (self->leader_name, sizeof self->leader_name, "%s", name);
    snprintf (self->leader, sizeof self->leader, "%s", endpoint);
    drover_reach_destroy (&self->reach);
    self->reach = *endpoint? drover_reach_new (endpoint): NULL;
    self->check_at = 0;
    self->leader_gone = false;
}

//  Check, when due, that something still listens at the leader's endpoint
static void
s_check_leader (drover_standby_t *self)
{
    int64_t now = zclock_mono ();
    if (!self->reach || now < self->check_at)
        return;
    self->check_at = now + S_CHECK_EVERY;
    //  Only a refusal says it is gone; no answer in time says nothing
    int found = drover_reach_check (self->reach, S_CHECK_WAIT);
    bool gone = found == DROVER_REACH_REFUSED
             || (found == DROVER_REACH_UNKNOWN && self->leader_gone);
    if (gone != self->leader_gone)
        zsys_notice ("standby: leader=%s endpoint=%s %s", self->leader_name, self->leader,
                     gone? "refuses connections: naming no leader until one is elected"
                         : "listens again: naming it");
    self->leader_gone = gone;
}

//  Answer QUEUES with a copy of table from now on
void
drover_standby_set_queues (drover_standby_t *self, drover_queuetable_t *table)
{
    assert (self);
    assert (table);
    drover_queuetable_t *copy = drover_queuetable_dup (table);
    drover_queuetable_destroy (&self->queues);
    self->queues = copy;
}

//  Send reply to the peer at route, never blocking
static void
s_send (drover_standby_t *self, zmq_msg_t *route, drover_msg_t *reply)
{
    zframe_t *payload = drover_msg_encode (reply);
    assert (payload);               //  every field was checked when set
    if (drover_peerlevels_fit (self->levels, zmq_msg_data (route), zmq_msg_size (route),
                               &payload) == -1)
        return;                     //  the peer's level has no such message
    void *handle = zsock_resolve (self->router);
    if (zmq_send (handle, zmq_msg_data (route), zmq_msg_size (route),
                  ZMQ_SNDMORE | ZMQ_DONTWAIT) == -1
    ||  zframe_send (&payload, self->router, ZFRAME_DONTWAIT) == -1)
        self->unsent++;
    zframe_destroy (&payload);
}

//  Log bad input, at most once a second
static void
s_warn (drover_standby_t *self, const char *what)
{
    int64_t now = zclock_mono ();
    if (now - self->warned_at >= 1000) {
        zsys_warning ("standby: bad input reason=\"%s\" malformed=%" PRIu64,
                      what, self->malformed);
        self->warned_at = now;
    }
}

//  Answer one payload: REDIRECT, ERROR, or nothing for a status
static void
s_answer (drover_standby_t *self, zmq_msg_t *route, zmq_msg_t *payload, bool extra_frames)
{
    const byte *data = (const byte *) zmq_msg_data (payload);
    size_t size = zmq_msg_size (payload);
    drover_msg_t *msg = drover_msg_new (0);
    drover_msg_t *reply = NULL;
    uint32_t seq = 0;
    int id = drover_msg_peek (data, size, &seq);
    bool decoded = !extra_frames && drover_msg_decode (msg, data, size) == 0;
    if (decoded)
        drover_peerlevels_heard (self->levels, zmq_msg_data (route), zmq_msg_size (route), msg);
    if (extra_frames) {
        self->malformed++;
        s_warn (self, "more than one frame");
        reply = drover_msg_new (DROVER_MSG_ERROR);
        reply->code = DROVER_CODE_BAD_REQUEST;
        drover_msg_set_reason (reply, "a message is exactly one frame");
    }
    else
    if (decoded && msg->id == DROVER_MSG_QUEUES)
        //  Where named queues are served: any broker says, a standby too
        reply = drover_queuetable_encode (self->queues);
    else
    if (decoded && msg->id == DROVER_MSG_CLIENT_HELLO)
        reply = drover_peerlevels_welcome (msg, self->name);   //  a standby speaks a level too
    else
    if (decoded) {
        reply = drover_msg_new (DROVER_MSG_REDIRECT);
        if (!self->leader_gone) {
            strcpy (reply->leader, self->leader);
            strcpy (reply->leader_name, self->leader_name);
        }
    }
    else {
        self->malformed++;
        s_warn (self, msg->error? msg->error: "malformed");
        reply = drover_msg_new (DROVER_MSG_ERROR);
        reply->code = msg->bad_version? DROVER_CODE_BAD_VERSION
                    : msg->too_large? DROVER_CODE_TOO_LARGE: DROVER_CODE_BAD_REQUEST;
        drover_msg_set_reason (reply, msg->error? msg->error: "malformed");
    }
    //  A status is never answered, even a broken one: two peers could loop;
    //  nor is what has no readable header (it is no one's request)
    bool status = id == DROVER_MSG_OK || id == DROVER_MSG_ERROR || id == DROVER_MSG_REDIRECT;
    bool readable = id >= 0;    //  its seq could be read (PROTOCOL.md §5)
    if (!status && readable) {
        reply->seq = seq;
        s_send (self, route, reply);
        if (reply->id == DROVER_MSG_REDIRECT)
            self->redirects++;
    }
    drover_msg_destroy (&reply);
    drover_msg_destroy (&msg);
}

//  Answer what is ready on the router (at most a batch). Never blocks.
void
drover_standby_handle (drover_standby_t *self)
{
    assert (self);
    s_check_leader (self);
    void *handle = zsock_resolve (self->router);
    for (int count = 0; count < S_BATCH; count++) {
        zmq_msg_t route;
        zmq_msg_init (&route);
        if (zmq_msg_recv (&route, handle, ZMQ_DONTWAIT) == -1) {
            zmq_msg_close (&route);
            break;              //  nothing more ready (or interrupted)
        }
        zmq_msg_t payload;
        zmq_msg_init (&payload);
        bool received = zmq_msg_more (&route) && zmq_msg_recv (&payload, handle, 0) != -1;
        bool extra_frames = drover_msg_drop_more (handle, received && zmq_msg_more (&payload));
        if (received)
            s_answer (self, &route, &payload, extra_frames);
        zmq_msg_close (&payload);
        zmq_msg_close (&route);
    }
}

//  Return how many REDIRECTs were sent
uint64_t
drover_standby_redirects (drover_standby_t *self)
{
    assert (self);
    return self->redirects;
}

//  Return how many messages were malformed
uint64_t
drover_standby_malformed (drover_standby_t *self)
{
    assert (self);
    return self->malformed;
}
