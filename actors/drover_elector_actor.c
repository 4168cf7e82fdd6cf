/*  =========================================================================
    drover_elector_actor - the elector actor: keeps this broker's session lease in
    etcd, campaigns, and tells the broker main whether it leads or whom it
    follows

    Each broker holds a lease of ttl and two keys on it: PREFIX/brokers/NAME
    = advertise, then "\nQ ENDPOINT" for each named queue it offers
    (membership), and PREFIX/election/LEASEHEX = name "\n" advertise (its
    candidacy; the values, and what a name and an endpoint may hold:
    src/broker/ha/drover_elector.c). The leader is the candidate with the
    lowest create revision; that revision is its fencing token (revisions
    only grow, so a later leader has a higher one). A dead broker's lease
    expires and its keys go with it; the next candidate is then the lowest.

    Safety: the leader counts its lease from when it sent the last renewal
    that etcd answered, and stops believing it leads (DEPOSED) at that time
    + ttl - ttl/4, before etcd can have let the lease expire (etcd counts
    from when it got the renewal, with a TTL at least ttl). So two brokers
    never both believe they lead, while clocks tick at the same rate.

    Named queues (docs/brokers.md): the leader places the queues
    the members offer (src/broker/ha/drover_placement.c) and writes PREFIX/queues/Q =
    owner "\n" endpoint (no lease) where the key differs from its choice;
    every elector reads the keys and says QUEUE on each change (token: the
    key's mod revision). The session deadline holds for a queue's owner as
    for the leader: past it, or the lease lost or given up, a QUEUE naming
    no owner is said first for each queue last said ours. Bookkeeping in
    src/broker/ha/drover_queuewatch.c.

    One call to etcd per turn of the loop, each with a timeout of at most
    ttl/4 (and never past the leader's deadline): the pipe is never left
    unread longer than one call. Calls due, in this order: revoke a lease
    given up (after DEPOSED, or an earlier run's of this broker), grant
    a lease, renew it (every ttl/3), write the membership key, write the
    candidacy, then the check, one step a turn: read the candidates, read
    PREFIX/brokers/, read PREFIX/queues/, and, leading, write each queue
    key the placement changes. A failed call waits a retry interval (ttl/8
    within ha/retry-min..ha/retry-max) and starts the check again.

    Watch, don't poll: the elector also keeps an etcd watch on PREFIX/
    (src/broker/ha/drover_etcdwatch.c: a streaming /v3/watch over libcurl's
    multi interface, its socket in this loop's poll, so it never blocks).
    Each change it reports starts the check at once (during a check, the
    leader's own queue writes among them, another follows right after it);
    while it is up the check runs otherwise only every ha/safety-check msec. While it is
    down (not yet created, its connection ended, etcd restarted, or a call
    failed, so that its silence proves nothing) the check polls every
    min(ttl/4, ha/check-max), and the watch is opened again after a
    backoff (src/broker/ha/drover_watchplan.c decides). Each break and each
    recovery is logged once.

    What it hears and says: actors/ACTORS.md, "elector".
    =========================================================================
*/

#include "drover_elector_actor.h"
#include "drover_etcd.h"
#include "drover_elector.h"
#include "drover_placement.h"
#include "drover_queuewatch.h"
#include "drover_etcdwatch.h"
#include "drover_watchplan.h"
#include "drover_actor.h"


//  The steps of a check, one call each
#define S_STEP_CANDIDATES   0   //  read PREFIX/election/
#define S_STEP_BROKERS      1   //  read PREFIX/brokers/
#define S_STEP_QUEUES       2   //  read PREFIX/queues/
#define S_STEP_PUTS         3   //  leading: write a queue key the placement changed

typedef struct {
    zsock_t *pipe;              //  commands from the broker main
    drover_poller_t *poller;    //  the pipe
    drover_etcd_t *etcd;        //  the client; NULL if the endpoints were bad
    char *prefix;               //  key prefix, without a trailing '/'
    char *name;                 //  this broker's name
    char *advertise;            //  where peers reach it
    char *queues;               //  the named queues it offers, "Q EP" lines, "" for none
    drover_queuewatch_t *watch; //  the named queues: offers, owners, what was said
    char *member_key;           //  PREFIX/brokers/NAME
    char *election_key;         //  PREFIX/election/LEASEHEX of the current lease, or NULL
    uint32_t ttl;               //  the lease's TTL, msec
    drover_actor_flags_t flags; //  VERBOSE (log every call that fails), $TERM heard
    bool campaigning;           //  false after RESIGN, until CAMPAIGN
    int64_t campaign_at;        //  msec (mono): CAMPAIGN's delay, no new lease before it
    int64_t clash_lease;        //  the last lease of another broker with our name, said once
    int64_t lease;              //  the current lease, 0 for none
    int64_t stale_lease;        //  a lease given up, to revoke before a new one; 0 for none
    bool member_written;        //  membership key written with the current lease
    bool candidate_written;     //  candidacy written with the current lease
    int64_t renewed_at;         //  msec (mono) the last answered renewal (or grant) was sent
    int64_t renew_at;           //  msec (mono) the next renewal is due
    int64_t check_at;           //  msec (mono) the next step of the check is due
    int check_step;             //  S_STEP_...: the check's next call
    int64_t next_check_at;      //  msec (mono): the next check, once this one is done
    int64_t quiet_until;        //  msec (mono): no call before this, after a failure
    bool failing;               //  the last call failed (logged once until one works)
    bool malformed;             //  the first candidacy is malformed (logged once)
    bool leader;                //  said LEADER, and no DEPOSED since
    uint64_t token;             //  the token said with LEADER
    char *followed_name;        //  the leader last said with FOLLOW, NULL if none said
    char *followed_endpoint;    //  its endpoint
    uint32_t check_max;         //  msec between reads at most while polling
    uint32_t retry_min;         //  msec: least wait after a failed call
    uint32_t retry_max;         //  msec: most wait after a failed call
    drover_etcdwatch_t *stream; //  the watch on PREFIX/, NULL if not watching
    drover_watchplan_t *plan;   //  watching or polling, and when
    char *watch_prefix;         //  PREFIX/, what the watch covers
    bool watch_said;            //  the watch's first start was logged
    bool changed;               //  the watch saw a change during a check: another at its end
} self_t;

//  Copy a string, or "" for NULL
static char *
s_copy (const char *text)
{
    char *copy = strdup (text? text: "");
    assert (copy);
    return copy;
}

//  Check the args
int
drover_elector_actor_args_check (const drover_elector_actor_args_t *args, char **error_p)
{
    assert (args);
    char *error = NULL;
    const char *name = args->name? args->name: "";
    const char *advertise = args->advertise? args->advertise: "";
    drover_etcd_t *etcd = drover_etcd_new (args->etcd, 1000, &error);
    drover_etcd_destroy (&etcd);
    if (!error && !drover_elector_name_valid (name))
        error = zsys_sprintf ("elector: broker name \"%s\" must be 1 to %d bytes, without '/'"
                              " or control characters", name, DROVER_ELECTOR_NAME_MAX);
    if (!error && !drover_elector_advertise_valid (advertise))
        error = zsys_sprintf ("elector: advertise \"%s\" must be at most %d bytes, without"
                              " control characters", advertise, DROVER_ELECTOR_ENDPOINT_MAX);
    if (!error && args->ttl == 0)
        error = strdup ("elector: the lease TTL must be more than 0 msec");
    if (!error)
        drover_queuewatch_check_offers (args->queues, DROVER_ELECTOR_ENDPOINT_MAX, &error);
    if (!error && !drover_placement_strategy_valid (args->strategy))
        error = zsys_sprintf ("elector: strategy \"%s\" must be \"leader\", \"spread\" or"
                              " \"rr\"", args->strategy);
    uint32_t retry_min = args->retry_min? args->retry_min: DROVER_ELECTOR_RETRY_MIN;
    uint32_t retry_max = args->retry_max? args->retry_max: DROVER_ELECTOR_RETRY_MAX;
    uint32_t check_max = args->check_max? args->check_max: DROVER_ELECTOR_CHECK_MAX;
    uint32_t safety = args->safety_check? args->safety_check: DROVER_ELECTOR_SAFETY_CHECK;
    if (!error && retry_min > retry_max)
        error = zsys_sprintf ("elector: ha/retry-min (%u msec) must not be above ha/retry-max"
                              " (%u msec)", retry_min, retry_max);
    if (!error && safety < check_max)
        error = zsys_sprintf ("elector: ha/safety-check (%u msec) must not be below"
                              " ha/check-max (%u msec)", safety, check_max);
    int rc = error? -1: 0;
    if (error_p)
        *error_p = error;
    else
        zstr_free (&error);
    return rc;
}

//  Create the actor's state from its args
static self_t *
s_self_new (zsock_t *pipe, drover_elector_actor_args_t *args)
{
    assert (args);
    self_t *self = (self_t *) zmalloc (sizeof (self_t));
    self->pipe = pipe;
    self->poller = drover_poller_new ();
    drover_poller_add (self->poller, pipe);
    self->prefix = drover_elector_prefix (args->prefix && *args->prefix? args->prefix
                                                                         : DROVER_ELECTOR_PREFIX);
    self->name = s_copy (args->name);
    self->advertise = s_copy (args->advertise);
    self->queues = s_copy (args->queues);
    self->member_key = zsys_sprintf ("%s/brokers/%s", self->prefix, self->name);
    self->ttl = args->ttl >= 100? args->ttl: 100;
    self->flags.verbose = args->verbose;
    self->campaigning = true;
    self->check_max = args->check_max? args->check_max: DROVER_ELECTOR_CHECK_MAX;
    self->retry_min = args->retry_min? args->retry_min: DROVER_ELECTOR_RETRY_MIN;
    self->retry_max = args->retry_max? args->retry_max: DROVER_ELECTOR_RETRY_MAX;
    uint32_t poll = self->ttl / 4 < self->check_max? self->ttl / 4: self->check_max;
    uint32_t safety = args->safety_check? args->safety_check: DROVER_ELECTOR_SAFETY_CHECK;
    self->plan = drover_watchplan_new (!args->poll_only, poll, safety, self->retry_min,
                                       self->retry_max);
    self->watch_prefix = zsys_sprintf ("%s/", streq (self->prefix, "/")? "": self->prefix);
    char *error = NULL;
    if (drover_elector_actor_args_check (args, &error) == 0) {
        self->etcd = drover_etcd_new (args->etcd, self->ttl / 4, NULL);
        self->watch = drover_queuewatch_new (self->name, args->strategy);
        if (!args->poll_only)
            self->stream = drover_etcdwatch_new ();
    }
    else {
        zsys_error ("%s: not campaigning", error);
        zstr_free (&error);
    }
    return self;
}

//  Destroy the actor's state
static void
s_self_destroy (self_t **self_p)
{
    self_t *self = *self_p;
    if (!self)
        return;
    drover_etcdwatch_destroy (&self->stream);
    drover_watchplan_destroy (&self->plan);
    zstr_free (&self->watch_prefix);
    drover_etcd_destroy (&self->etcd);
    drover_queuewatch_destroy (&self->watch);
    drover_poller_destroy (&self->poller);
    zstr_free (&self->prefix);
    zstr_free (&self->name);
    zstr_free (&self->advertise);
    zstr_free (&self->queues);
    zstr_free (&self->member_key);
    zstr_free (&self->election_key);
    zstr_free (&self->followed_name);
    zstr_free (&self->followed_endpoint);
    free (self);
    *self_p = NULL;
}

//  The session's deadline: its last renewal's send time + ttl - ttl/4
static int64_t
s_deadline (self_t *self)
{
    return self->renewed_at + self->ttl - self->ttl / 4;
}

//  True if our session is sure at now: a lease, and its deadline not passed
static bool
s_session_sure (self_t *self, int64_t now)
{
    return self->lease && now < s_deadline (self);
}

//  True if we serve something that the session's deadline must stop: the
//  lead, or a named queue
static bool
s_serving (self_t *self)
{
    return self->leader || (self->watch && drover_queuewatch_owns (self->watch));
}

//  Say no owner for every queue last said ours: before anything else when
//  the session is no longer sure
static void
s_release_queues (self_t *self)
{
    if (self->watch) {
        drover_queuewatch_release (self->watch, self->pipe);
        drover_poller_sent (self->poller, DROVER_PIPE_AT);
    }
}

//  Say QUEUE for what changed. A send on the pipe may take in its pending
//  commands, and the signal of a command come meanwhile ($TERM) with them:
//  the poller is told, or the loop would sleep on it until its next
//  deadline (ha/safety-check while the watch is up)
static void
s_say_queue_changes (self_t *self)
{
    drover_queuewatch_say_changes (self->watch, self->pipe,
                                   s_session_sure (self, zclock_mono ()));
    drover_poller_sent (self->poller, DROVER_PIPE_AT);
}

//  Give the next call a timeout of ttl/4, but never past the session's
//  deadline while we serve
static void
s_set_call_timeout (self_t *self, int64_t now)
{
    int64_t timeout = self->ttl / 4;
    if (s_serving (self) && s_deadline (self) - now < timeout)
        timeout = s_deadline (self) - now;
    drover_etcd_set_timeout (self->etcd, (uint32_t) (timeout > 1? timeout: 1));
}

//  A call worked: say so once if calls were failing
static void
s_call_worked (self_t *self)
{
    if (self->failing)
        zsys_notice ("elector: etcd answers again at %s", drover_etcd_endpoint (self->etcd));
    self->failing = false;
}

//  The watch is down (or must not be trusted): close it, poll until it is
//  up again, and say so once per break
static void
s_watch_broken (self_t *self, const char *why, int64_t now)
{
    if (!self->stream)
        return;
    drover_etcdwatch_close (self->stream);
    int state = drover_watchplan_state (self->plan);
    if (drover_watchplan_broken (self->plan, now))
        zsys_warning ("elector: etcd watch down (%s): polling every %u ms until it is back",
                      why, drover_watchplan_interval (self->plan));
    if (self->flags.verbose)
        zsys_debug ("elector: etcd watch: reopening in %" PRId64 " ms",
                    drover_watchplan_open_at (self->plan) - now);
    if (state == DROVER_WATCHPLAN_UP) {
        self->check_step = S_STEP_CANDIDATES;   //  what it may have missed: read now
        self->check_at = now;
    }
}

//  A call failed: log it once, and wait a moment before the next one
static void
s_call_failed (self_t *self, const char *what, int64_t now)
{
    if (!self->failing || self->flags.verbose)
        zsys_warning ("elector: %s failed: %s", what, drover_etcd_error (self->etcd));
    self->failing = true;
    int64_t retry = self->ttl / 8;
    retry = retry < self->retry_min? self->retry_min: retry > self->retry_max? self->retry_max
                                                                              : retry;
    self->quiet_until = now + retry;
    //  etcd did not answer: the watch's silence proves nothing now
    s_watch_broken (self, "a call to etcd failed", now);
}

//  Say FOLLOW name endpoint if it is news
static void
s_follow (self_t *self, const char *name, const char *endpoint)
{
    if (self->followed_name && streq (self->followed_name, name)
    &&  streq (self->followed_endpoint, endpoint))
        return;                 //  nothing new
    zstr_free (&self->followed_name);
    zstr_free (&self->followed_endpoint);
    self->followed_name = s_copy (name);
    self->followed_endpoint = s_copy (endpoint);
    if (*name)
        zsys_notice ("elector: following %s at %s", name, endpoint);
    else
        zsys_notice ("elector: no leader known");
    zstr_sendx (self->pipe, "FOLLOW", name, endpoint, NULL);
    drover_poller_sent (self->poller, DROVER_PIPE_AT);
}

//  Forget whom we said we follow, so the next FOLLOW is said whatever it is
static void
s_forget_followed (self_t *self)
{
    zstr_free (&self->followed_name);
    zstr_free (&self->followed_endpoint);
}

//  We won: say LEADER token, once
static void
s_lead (self_t *self, uint64_t token)
{
    self->leader = true;
    self->token = token;
    s_forget_followed (self);
    char text [24];
    snprintf (text, sizeof text, "%" PRIu64, token);
    zsys_notice ("elector: leader token=%s", text);
    zstr_sendx (self->pipe, "LEADER", text, NULL);
    drover_poller_sent (self->poller, DROVER_PIPE_AT);
}

//  The current lease is no more ours to count on: if we led, say DEPOSED
//  now; campaign again with a new lease (after revoking this one, unless
//  etcd said it is gone already)
static void
s_lose_lease (self_t *self, const char *reason, bool revoke)
{
    s_release_queues (self);
    if (self->leader) {
        self->leader = false;
        self->token = 0;
        zsys_notice ("elector: deposed: %s", reason);
        zstr_sendx (self->pipe, "DEPOSED", reason, NULL);
        drover_poller_sent (self->poller, DROVER_PIPE_AT);
    }
    else
        zsys_notice ("elector: lease lost: %s", reason);
    if (revoke && self->lease)
        self->stale_lease = self->lease;
    self->lease = 0;
    self->member_written = false;
    self->candidate_written = false;
    zstr_free (&self->election_key);
}

//  Past the session's deadline (renewals did not get through in time):
//  our queues are released, then the leader is deposed
static void
s_check_deadline (self_t *self, int64_t now)
{
    if (!self->lease || now < s_deadline (self))
        return;
    s_release_queues (self);
    if (self->leader)
        s_lose_lease (self, "lease not renewed in time", true);
}

//  Start the check again now, from the candidates (who leads may have changed)
static void
s_check_now (self_t *self, int64_t now)
{
    self->check_step = S_STEP_CANDIDATES;
    self->check_at = now;
    self->changed = false;
}

//  Revoke the lease given up
static void
s_revoke_stale (self_t *self, int64_t now)
{
    int rc = drover_etcd_revoke (self->etcd, self->stale_lease);
    if (rc == -1) {
        s_call_failed (self, "revoking the old lease", now);
        return;
    }
    s_call_worked (self);
    self->stale_lease = 0;
    s_check_now (self, now);        //  who leads may have changed
}

//  Grant a new lease (ttl rounded up to seconds)
static void
s_grant (self_t *self, int64_t now)
{
    int64_t seconds = (self->ttl + 999) / 1000;
    int64_t lease;
    if (drover_etcd_grant (self->etcd, seconds, &lease, NULL) == -1) {
        s_call_failed (self, "granting a lease", now);
        return;
    }
    s_call_worked (self);
    self->lease = lease;
    self->renewed_at = now;
    self->renew_at = now + self->ttl / 3;
    self->election_key = zsys_sprintf ("%s/election/%" PRIx64, self->prefix, (uint64_t) lease);
    if (self->flags.verbose)
        zsys_debug ("elector: lease=%" PRIx64 " ttl=%" PRId64 "s", (uint64_t) lease, seconds);
}

//  Renew the lease; a lease etcd no longer has is lost
static void
s_renew (self_t *self, int64_t now)
{
    int64_t ttl = drover_etcd_keepalive (self->etcd, self->lease);
    if (ttl == -1) {
        s_call_failed (self, "renewing the lease", now);
        self->renew_at = self->quiet_until;
        return;
    }
    s_call_worked (self);
    if (ttl == DROVER_ETCD_GONE) {
        s_lose_lease (self, "lease gone", false);
        return;
    }
    self->renewed_at = now;         //  sent at now: etcd counts from later
    self->renew_at = now + self->ttl / 3;
}

//  Write the membership key or the candidacy with the lease
static void
s_write_key (self_t *self, bool candidacy, int64_t now)
{
    char *value = candidacy? drover_elector_candidacy (self->name, self->advertise)
                           : drover_elector_membership (self->advertise, self->queues);
    const char *key = candidacy? self->election_key: self->member_key;
    int rc = drover_etcd_put (self->etcd, key, value, strlen (value), self->lease);
    zstr_free (&value);
    if (rc == -1) {
        s_call_failed (self, candidacy? "writing the candidacy": "writing the membership", now);
        return;
    }
    s_call_worked (self);
    if (candidacy) {
        self->candidate_written = true;
        s_check_now (self, now);    //  see at once whether we lead
    }
    else
        self->member_written = true;
}

//  A candidacy with our name but not our lease. At our endpoint it is an
//  earlier run of this broker (killed, then started again): revoke its
//  lease now rather than wait for it to expire, so a restarted broker
//  neither follows itself nor waits a TTL. At another endpoint it is
//  another broker given our name: revoking each other's leases, the two
//  would take the lead from each other four times a second. The newer
//  candidacy withdraws instead (older_there: the other came first) and
//  campaigns again a TTL later, when a dead one's lease has expired; the
//  older keeps on. Either says so, once per other lease.
static void
s_note_same_name (self_t *self, drover_etcd_kv_t *kv, bool older_there, int64_t now)
{
    char name [DROVER_ELECTOR_NAME_MAX + 1];
    char endpoint [DROVER_ELECTOR_ENDPOINT_MAX + 1];
    if (!drover_elector_parse_candidacy (kv, name, endpoint) || strneq (name, self->name)
    ||  kv->lease == 0 || kv->lease == self->lease || self->stale_lease)
        return;
    if (streq (endpoint, self->advertise)) {
        zsys_warning ("elector: revoking lease=%" PRIx64 " of an earlier run of name=%s (at %s)",
                      (uint64_t) kv->lease, name, endpoint);
        self->stale_lease = kv->lease;
        return;
    }
    if (kv->lease != self->clash_lease)
        zsys_error ("elector: another broker named %s runs at %s (lease=%" PRIx64 "): %s; "
                    "give each broker its own name (ha/name, --name)", name, endpoint,
                    (uint64_t) kv->lease, older_there? "standing aside until it is gone":
                    "it came later and stands aside");
    self->clash_lease = kv->lease;
    if (older_there && self->lease) {
        s_lose_lease (self, "another broker has this name", true);
        self->campaign_at = now + self->ttl;
    }
}

//  Read the candidates: the lowest leads. We lead if it is ours; a leader
//  whose candidacy is gone is deposed, a follower's is campaigned anew
static void
s_check (self_t *self, int64_t now)
{
    char *prefix = zsys_sprintf ("%s/election/", self->prefix);
    zlistx_t *candidates = drover_etcd_range (self->etcd, prefix, true, 0);
    zstr_free (&prefix);
    if (!candidates) {
        s_call_failed (self, "reading the candidates", now);
        self->check_at = self->quiet_until;
        return;
    }
    s_call_worked (self);
    self->next_check_at = now + drover_watchplan_interval (self->plan);
    self->check_step = S_STEP_BROKERS;      //  the next turn, at once
    bool ours_there = false;
    drover_etcd_kv_t *kv = (drover_etcd_kv_t *) zlistx_first (candidates);
    while (kv) {
        if (self->election_key && streq (kv->key, self->election_key))
            ours_there = true;
        else
            s_note_same_name (self, kv, !ours_there, now);
        kv = (drover_etcd_kv_t *) zlistx_next (candidates);
    }
    if (self->candidate_written && !ours_there)
        s_lose_lease (self, "candidacy gone from etcd", true);

    drover_etcd_kv_t *first = (drover_etcd_kv_t *) zlistx_first (candidates);
    if (first && self->election_key && streq (first->key, self->election_key)) {
        //  The read took time: the lease must still hold now, not at its start
        if (!self->leader && zclock_mono () < s_deadline (self))
            s_lead (self, (uint64_t) first->create_revision);
    }
    else {
        if (self->leader)           //  someone else is first: ours went
            s_lose_lease (self, "another candidacy is first", true);
        char name [DROVER_ELECTOR_NAME_MAX + 1] = "";
        char endpoint [DROVER_ELECTOR_ENDPOINT_MAX + 1] = "";
        bool malformed = first && !drover_elector_parse_candidacy (first, name, endpoint);
        if (malformed && !self->malformed)
            zsys_warning ("elector: candidacy %s is malformed: leader unknown", first->key);
        if (malformed)
            name [0] = endpoint [0] = 0;
        self->malformed = malformed;
        //  Never follow an earlier run of ours (another broker given our
        //  name, at another endpoint, is followed)
        if (!streq (name, self->name) || !streq (endpoint, self->advertise))
            s_follow (self, name, endpoint);
    }
    zlistx_destroy (&candidates);
}

//  The check is done: the next is due at next_check_at
static void
s_check_done (self_t *self)
{
    self->check_step = S_STEP_CANDIDATES;
    self->check_at = self->changed? 0: self->next_check_at;
    self->changed = false;
}

//  Read PREFIX/brokers/ (the members and what each offers) or, owners,
//  PREFIX/queues/ (each queue's owner: then say what changed)
static void
s_read_queue_keys (self_t *self, bool owners, int64_t now)
{
    char *prefix = zsys_sprintf ("%s/%s/", self->prefix, owners? "queues": "brokers");
    zlistx_t *kvs = drover_etcd_range (self->etcd, prefix, false, 0);
    if (!kvs) {
        s_call_failed (self, owners? "reading the queues": "reading the brokers", now);
        s_check_now (self, self->quiet_until);
    }
    else
    if (!owners) {
        s_call_worked (self);
        drover_queuewatch_set_members (self->watch, kvs, strlen (prefix));
        self->check_step = S_STEP_QUEUES;
    }
    else {
        s_call_worked (self);
        drover_queuewatch_set_queues (self->watch, kvs, strlen (prefix));
        s_say_queue_changes (self);     //  the read took time: sure now?
        if (self->leader)
            self->check_step = S_STEP_PUTS;
        else
            s_check_done (self);
    }
    zlistx_destroy (&kvs);
    zstr_free (&prefix);
}

//  Leading: write the next queue key whose owner the placement changes;
//  the check is done when none is left
static void
s_write_queue (self_t *self, int64_t now)
{
    char *queue, *value;
    if (!self->leader || !drover_queuewatch_next_put (self->watch, &queue, &value)) {
        s_check_done (self);
        return;
    }
    char *key = zsys_sprintf ("%s/queues/%s", self->prefix, queue);
    if (drover_etcd_put (self->etcd, key, value, strlen (value), 0) == -1) {
        s_call_failed (self, "writing a queue's owner", now);
        s_check_now (self, self->quiet_until);
    }
    else {
        s_call_worked (self);
        int64_t revision = drover_etcd_revision (self->etcd);
        drover_queuewatch_put_done (self->watch, queue, value, revision);
        char *newline = strchr (value, '\n');
        zsys_notice ("elector: queue=%s owner=%.*s token=%" PRId64, queue,
                     (int) (newline - value), value, revision);
        s_say_queue_changes (self);
    }
    zstr_free (&key);
    zstr_free (&queue);
    zstr_free (&value);
}

//  Make the check's next call
static void
s_check_step (self_t *self, int64_t now)
{
    if (self->check_step == S_STEP_BROKERS || self->check_step == S_STEP_QUEUES)
        s_read_queue_keys (self, self->check_step == S_STEP_QUEUES, now);
    else
    if (self->check_step == S_STEP_PUTS)
        s_write_queue (self, now);
    else
        s_check (self, now);
}

//  When the next call is due (msec mono), or -1 if none is
static int64_t
s_next_call (self_t *self)
{
    if (!self->etcd)
        return -1;
    int64_t due = self->check_at;
    if (self->stale_lease
    ||  (self->lease && (!self->member_written || !self->candidate_written)))
        due = 0;
    else
    if (self->campaigning && !self->lease && self->campaign_at < due)
        due = self->campaign_at;
    else
    if (self->lease && self->renew_at < due)
        due = self->renew_at;
    return due > self->quiet_until? due: self->quiet_until;
}

//  Make the one call due now, if any
static void
s_call_due (self_t *self, int64_t now)
{
    if (!self->etcd || now < s_next_call (self))
        return;
    s_set_call_timeout (self, now);
    if (self->stale_lease)
        s_revoke_stale (self, now);
    else
    if (self->campaigning && !self->lease && now >= self->campaign_at)
        s_grant (self, now);
    else
    if (self->lease && now >= self->renew_at)
        s_renew (self, now);
    else
    if (self->lease && !self->member_written)
        s_write_key (self, false, now);
    else
    if (self->lease && !self->candidate_written)
        s_write_key (self, true, now);
    else
    if (now >= self->check_at)
        s_check_step (self, now);
}

//  Revoke our lease now (RESIGN, $TERM): its keys go with it, so another
//  candidate is first at once. If etcd does not answer, the lease is
//  revoked later (RESIGN) or left to expire ($TERM).
static void
s_revoke_now (self_t *self)
{
    s_release_queues (self);
    int64_t lease = self->lease? self->lease: self->stale_lease;
    self->leader = false;
    self->token = 0;
    self->lease = 0;
    self->stale_lease = 0;
    self->member_written = false;
    self->candidate_written = false;
    zstr_free (&self->election_key);
    if (!lease || !self->etcd)
        return;
    drover_etcd_set_timeout (self->etcd, self->ttl / 4 < 1000? self->ttl / 4: 1000);
    if (drover_etcd_revoke (self->etcd, lease) == -1) {
        zsys_warning ("elector: revoking lease=%" PRIx64 " failed: %s", (uint64_t) lease,
                      drover_etcd_error (self->etcd));
        self->stale_lease = lease;
    }
}

//  PEERS: answer with the brokers etcd lists ("0" if it does not answer)
static void
s_peers (self_t *self)
{
    zmsg_t *reply = zmsg_new ();
    zmsg_addstr (reply, "PEERS");
    zlistx_t *brokers = NULL;
    if (self->etcd) {
        char *prefix = zsys_sprintf ("%s/brokers/", self->prefix);
        s_set_call_timeout (self, zclock_mono ());
        brokers = drover_etcd_range (self->etcd, prefix, false, 0);
        zstr_free (&prefix);
        if (!brokers)
            zsys_warning ("elector: reading the brokers failed: %s",
                          drover_etcd_error (self->etcd));
    }
    const char *leader = self->leader? self->name: self->followed_name? self->followed_name: "";
    drover_elector_add_peers (reply, brokers, strlen (self->prefix) + strlen ("/brokers/"),
                                leader);
    zlistx_destroy (&brokers);
    zmsg_send (&reply, self->pipe);
    drover_poller_sent (self->poller, DROVER_PIPE_AT);
}

//  Handle one command from the pipe (drover_actor_read calls this)
static void
s_handle_command (void *arg, zmsg_t *msg)
{
    self_t *self = (self_t *) arg;
    char *command = zmsg_popstr (msg);
    assert (command);
    if (self->flags.verbose)
        zsys_debug ("elector: command=%s", command);
    if (streq (command, "RESIGN")) {
        zsys_notice ("elector: resigning%s", self->leader? " the lead": "");
        self->campaigning = false;
        s_revoke_now (self);
        s_check_now (self, 0);      //  see who leads now
    }
    else
    if (streq (command, "CAMPAIGN")) {
        char *delay = zmsg_popstr (msg);
        self->campaigning = true;
        self->campaign_at = zclock_mono () + (delay? atoi (delay): 0);
        zstr_free (&delay);
    }
    else
    if (streq (command, "PEERS"))
        s_peers (self);
    else
    if (streq (command, "$TERM")) {
        s_revoke_now (self);        //  a clean shutdown: the standby leads at once
        self->flags.stopping = true;
    }
    else
    if (!drover_actor_handle_common (&self->flags, command, msg)) {
        zsys_error ("elector: invalid command=%s", command);
        assert (false);             //  the vocabulary is in ACTORS.md
    }
    zstr_free (&command);
}

//  Open the watch when the plan says it is due, on the endpoint the next
//  call goes to
static void
s_watch_open_due (self_t *self, int64_t now)
{
    if (!self->stream || !self->etcd || !drover_watchplan_open_due (self->plan, now))
        return;
    drover_etcdwatch_open (self->stream, drover_etcd_endpoint (self->etcd), self->watch_prefix,
                           self->ttl / 4);
    drover_watchplan_opening (self->plan, now);
    if (self->flags.verbose)
        zsys_debug ("elector: opening an etcd watch on %s at %s", self->watch_prefix,
                    drover_etcd_endpoint (self->etcd));
}

//  Hand the watch's connection what the poll saw; a change starts the
//  check at once, the watch's creation too (what came before it is read)
static void
s_watch_perform (self_t *self, bool readable, int64_t now)
{
    if (!self->stream || !drover_etcdwatch_is_open (self->stream))
        return;
    int found = drover_etcdwatch_perform (self->stream, readable);
    if (found & DROVER_ETCDWATCH_CREATED) {
        bool recovery = drover_watchplan_up (self->plan, now);
        if (recovery || !self->watch_said)
            zsys_notice ("elector: etcd watch %s at %s on %s: reading at each change, and every"
                         " %u ms besides", recovery? "back": "up", drover_etcd_endpoint (self->etcd),
                         self->watch_prefix, drover_watchplan_interval (self->plan));
        self->watch_said = true;
        s_check_now (self, now);
    }
    if (found & DROVER_ETCDWATCH_CHANGED) {
        if (self->flags.verbose)
            zsys_debug ("elector: etcd watch: a change under %s", self->watch_prefix);
        //  Between checks: one now. During one (the leader writing queue keys
        //  sees its own writes): it goes on, and another follows at once
        if (self->check_step == S_STEP_CANDIDATES)
            s_check_now (self, now);
        else
            self->changed = true;
    }
    if (found & DROVER_ETCDWATCH_BROKEN)
        s_watch_broken (self, drover_etcdwatch_error (self->stream), now);
}

//  Wait for the pipe, the watch's socket, or the next deadline (due, msec
//  mono, -1 for none); then hand the watch what came. -1 if interrupted.
static int
s_wait (self_t *self, int64_t due, int64_t now)
{
    int64_t open_at = self->stream? drover_watchplan_open_at (self->plan): -1;
    if (open_at != -1 && (due == -1 || open_at < due))
        due = open_at;
    int wait = drover_actor_poll_timeout (due, now);
    int fd = -1;
    zmq_pollitem_t *items = NULL;
    if (self->stream && drover_etcdwatch_is_open (self->stream)) {
        int timeout = drover_etcdwatch_timeout (self->stream);
        if (timeout != -1 && (wait == -1 || timeout < wait))
            wait = timeout;
        fd = drover_etcdwatch_fd (self->stream);
        if (fd != -1) {
            items = drover_poller_items (self->poller, 1);
            items [0] = (zmq_pollitem_t) { NULL, fd, ZMQ_POLLIN, 0 };
        }
    }
    if (drover_actor_wait (self->poller, wait, 0) == -1)
        return -1;
    bool readable = items && (items [0].revents & (ZMQ_POLLIN | ZMQ_POLLERR));
    s_watch_perform (self, readable, zclock_mono ());
    return 0;
}

//  The actor
void
drover_elector_actor (zsock_t *pipe, void *args)
{
    drover_actor_name_thread ("elector");
    self_t *self = s_self_new (pipe, (drover_elector_actor_args_t *) args);
    zsock_signal (pipe, 0);
    while (!self->flags.stopping) {
        int64_t now = zclock_mono ();
        s_check_deadline (self, now);
        s_watch_open_due (self, now);
        int64_t due = s_next_call (self);
        if (s_serving (self) && (due == -1 || s_deadline (self) < due))
            due = s_deadline (self);
        if (s_wait (self, due, now) == -1)
            break;                  //  interrupted
        int read = drover_actor_read (self->poller, self->pipe, NULL, s_handle_command, NULL,
                                      self);
        if (read == -1)
            break;                  //  the context is ending
        if (read > 0)
            continue;               //  commands first, then what is due
        now = zclock_mono ();
        s_check_deadline (self, now);
        s_call_due (self, now);
        s_check_deadline (self, zclock_mono ());
    }
    s_self_destroy (&self);
}
