/*  =========================================================================
    drover_taskinfo - the task info codec (see the header; PROTOCOL.md
    §7.27 lists the keys)

    Packed in two passes (count, then write into a buffer of exactly that
    size) with the shared msgpack writer; read with the shared bounded
    cursor after one walk of the whole value.
    =========================================================================
*/

#include "drover_taskinfo.h"
#include "drover_mpack.h"
#include "drover_devicelist.h"

//  The parts of an info, for error texts
typedef enum {
    P_INFO, P_KEY, P_VALUE, P_STRING, P_LIST, P_ATTEMPT, P_PARENT, P_COUNTS, P_COUNT
} s_part_t;

static const drover_mpack_errors_t
s_errors [P_COUNT] = {
    [P_INFO]        = DROVER_MPACK_ERRORS ("task info", "invalid"),
    [P_KEY]         = DROVER_MPACK_ERRORS ("task info key", "repeated"),
    [P_VALUE]       = DROVER_MPACK_ERRORS ("task info value", "invalid"),
    [P_STRING]      = DROVER_MPACK_ERRORS ("task info string", "invalid"),
    [P_LIST]        = DROVER_MPACK_ERRORS ("task info list", "invalid"),
    [P_ATTEMPT]     = DROVER_MPACK_ERRORS ("attempt", "invalid"),
    [P_PARENT]      = DROVER_MPACK_ERRORS ("task info parent", "invalid"),
    [P_COUNTS]      = DROVER_MPACK_ERRORS ("task info member_counts", "not 7 counts"),
};

//  The info's keys, in the order they are packed: those of level 2, always
//  sent, then those of workflows (level 3), sent only when not zero
typedef enum {
    K_TASK, K_STATE, K_END, K_REASON, K_OUTCOME, K_EXIT_CODE, K_SIGNAL, K_DURATION,
    K_TRUNCATED, K_OUT_SIZE, K_ERR_SIZE, K_OWNER, K_PRIORITY, K_PROCS, K_MEM, K_TIMEOUT,
    K_RETRIES, K_RETRIES_LEFT, K_LOST, K_LABELS, K_ARGV, K_CWD, K_ENV, K_INPUT_SIZE, K_KEY,
    K_QUEUED_AT, K_STARTED_AT, K_ENDED_AT, K_ATTEMPT, K_WORKER, K_ATTEMPTS, K_DROPPED,
    K_WAITS, K_BEGIN, K_DUE, K_RETRY_DELAY, K_RETRY_MAX_DELAY, K_GROUP, K_INDEX, K_PARENTS,
    K_CHILDREN, K_CHILDREN_TOTAL, K_MEMBERS, K_LIMIT, K_ARRAY_FIRST, K_ARRAY_STEP,
    K_MEMBER_COUNTS, K_DEVICES, K_ASSIGNED, K_PREEMPTIBLE, K_KEYS
} s_key_t;

static const char *
s_keys [K_KEYS] = {
    "task", "state", "end", "reason", "outcome", "exit_code", "signal", "duration",
    "truncated", "out_size", "err_size", "owner", "priority", "procs", "mem", "timeout",
    "retries", "retries_left", "lost", "labels", "argv", "cwd", "env", "input_size", "key",
    "queued_at", "started_at", "ended_at", "attempt", "worker", "attempts", "dropped",
    "waits", "begin", "due", "retry_delay", "retry_max_delay", "group", "index", "parents",
    "children", "children_total", "members", "limit", "array_first", "array_step",
    "member_counts", "devices", "assigned", "preemptible"
};

#define S_MEMBER_COUNTS     7       //  entries of member_counts, one per task state
#define S_PARENT_MIN        4       //  fewest wire bytes of a parent: header + 3 fixints

//  An attempt's keys, in the order they are packed
typedef enum {
    A_ATTEMPT, A_WORKER, A_OFFERED_AT, A_STARTED_AT, A_ENDED_AT, A_OUTCOME, A_REQUEUED,
    A_EXIT_CODE, A_SIGNAL, A_REASON, A_KEYS
} s_attempt_key_t;

static const char *
s_attempt_keys [A_KEYS] = {
    "attempt", "worker", "offered_at", "started_at", "ended_at", "outcome", "requeued",
    "exit_code", "signal", "reason"
};

#define S_STRING_MAX    (DROVER_MSG_MAX)    //  one argv entry or path, bytes at most
#define S_ATTEMPT_MIN   (1 + A_KEYS * 2)    //  a map of empty keys and fixint values


//  Create an empty info
drover_taskinfo_t *
drover_taskinfo_new (void)
{
    drover_taskinfo_t *self = (drover_taskinfo_t *) zmalloc (sizeof (drover_taskinfo_t));
    self->exit_code = -1;
    self->outcome = DROVER_ATTEMPT_NO_RESULT;
    return self;
}

//  Free a list of count strings
static void
s_list_free (char ***list_p, uint32_t count)
{
    if (!*list_p)
        return;
    for (uint32_t index = 0; index < count; index++)
        free ((*list_p) [index]);
    free (*list_p);
    *list_p = NULL;
}

//  Destroy an info
void
drover_taskinfo_destroy (drover_taskinfo_t **self_p)
{
    assert (self_p);
    drover_taskinfo_t *self = *self_p;
    if (!self)
        return;
    free (self->reason);
    s_list_free (&self->labels, self->nlabels);
    s_list_free (&self->argv, self->argc);
    free (self->cwd);
    s_list_free (&self->env, self->nenv);
    free (self->key);
    free (self->attempts);
    free (self->parents);
    free (self->children);
    free (self->devices);
    free (self->assigned);
    free (self);
    *self_p = NULL;
}


//  ---------------------------------------------------------------------
//  Packing

//  Pack a key
static void
s_pack_key (msgpack_packer *pk, const char *key)
{
    drover_mpack_pack_str (pk, key, strlen (key));
}

//  Pack a string (NULL packs "")
static void
s_pack_string (msgpack_packer *pk, const char *text)
{
    drover_mpack_pack_str (pk, text? text: "", text? strlen (text): 0);
}

//  Pack a list of strings
static void
s_pack_list (msgpack_packer *pk, char *const *list, uint32_t count)
{
    msgpack_pack_array (pk, count);
    for (uint32_t index = 0; index < count; index++)
        s_pack_string (pk, list [index]);
}

//  Pack a time: msec since the epoch, 0 for none (never negative)
static void
s_pack_time (msgpack_packer *pk, int64_t time)
{
    msgpack_pack_uint64 (pk, time > 0? (uint64_t) time: 0);
}

//  Pack one attempt as a map
static void
s_pack_attempt (msgpack_packer *pk, const drover_attempt_t *attempt)
{
    msgpack_pack_map (pk, A_KEYS);
    s_pack_key (pk, s_attempt_keys [A_ATTEMPT]);
    msgpack_pack_uint32 (pk, attempt->attempt);
    s_pack_key (pk, s_attempt_keys [A_WORKER]);
    drover_mpack_pack_str (pk, attempt->worker, strnlen (attempt->worker, DROVER_ID_MAX));
    s_pack_key (pk, s_attempt_keys [A_OFFERED_AT]);
    s_pack_time (pk, attempt->offered_at);
    s_pack_key (pk, s_attempt_keys [A_STARTED_AT]);
    s_pack_time (pk, attempt->started_at);
    s_pack_key (pk, s_attempt_keys [A_ENDED_AT]);
    s_pack_time (pk, attempt->ended_at);
    s_pack_key (pk, s_attempt_keys [A_OUTCOME]);
    msgpack_pack_uint8 (pk, attempt->outcome);
    s_pack_key (pk, s_attempt_keys [A_REQUEUED]);
    if (attempt->requeued)
        msgpack_pack_true (pk);
    else
        msgpack_pack_false (pk);
    s_pack_key (pk, s_attempt_keys [A_EXIT_CODE]);
    msgpack_pack_int32 (pk, attempt->exit_code);
    s_pack_key (pk, s_attempt_keys [A_SIGNAL]);
    msgpack_pack_int32 (pk, attempt->signal);
    s_pack_key (pk, s_attempt_keys [A_REASON]);
    drover_mpack_pack_str (pk, attempt->reason, strnlen (attempt->reason, DROVER_REASON_MAX));
}

//  True if a key of workflows has a value in self (it is sent only then)
static bool
s_workflow_key_set (const drover_taskinfo_t *self, int key)
{
    switch (key) {
        case K_WAITS:           return self->waits != 0;
        case K_BEGIN:           return self->begin != 0;
        case K_DUE:             return self->due != 0;
        case K_RETRY_DELAY:     return self->retry_delay != 0;
        case K_RETRY_MAX_DELAY: return self->retry_max_delay != 0;
        case K_GROUP:           return self->group != 0;
        case K_INDEX:           return self->index != 0;
        case K_PARENTS:         return self->nparents != 0;
        case K_CHILDREN:        return self->nchildren != 0;
        case K_CHILDREN_TOTAL:  return self->children_total != 0;
        case K_MEMBERS:         return self->members != 0;
        case K_LIMIT:           return self->limit != 0;
        case K_ARRAY_FIRST:     return self->array_first != 0;
        case K_ARRAY_STEP:      return self->array_step != 0;
        case K_MEMBER_COUNTS:
            for (int state = 0; state < S_MEMBER_COUNTS; state++)
                if (self->member_counts [state])
                    return true;
            return false;
        case K_DEVICES:         return self->devices && self->devices [0];     //  level 4
        case K_ASSIGNED:        return self->assigned && self->assigned [0];
        case K_PREEMPTIBLE:     return self->preemptible != 0;
    }
    return true;                //  a key of level 2: always sent
}

//  Pack the value of a key of workflows
static void
s_pack_workflow_value (msgpack_packer *pk, const drover_taskinfo_t *self, int key)
{
    switch (key) {
        case K_WAITS:           msgpack_pack_uint8 (pk, self->waits); break;
        case K_BEGIN:           msgpack_pack_uint64 (pk, self->begin); break;
        case K_DUE:             msgpack_pack_uint64 (pk, self->due); break;
        case K_RETRY_DELAY:     msgpack_pack_uint32 (pk, self->retry_delay); break;
        case K_RETRY_MAX_DELAY: msgpack_pack_uint32 (pk, self->retry_max_delay); break;
        case K_GROUP:           msgpack_pack_uint64 (pk, self->group); break;
        case K_INDEX:           msgpack_pack_uint32 (pk, self->index); break;
        case K_PARENTS:
            msgpack_pack_array (pk, self->nparents);
            for (uint32_t index = 0; index < self->nparents; index++) {
                msgpack_pack_array (pk, 3);
                msgpack_pack_uint8 (pk, self->parents [index].kind);
                msgpack_pack_uint64 (pk, self->parents [index].task);
                msgpack_pack_uint8 (pk, self->parents [index].state);
            }
            break;
        case K_CHILDREN:
            msgpack_pack_array (pk, self->nchildren);
            for (uint32_t index = 0; index < self->nchildren; index++)
                msgpack_pack_uint64 (pk, self->children [index]);
            break;
        case K_CHILDREN_TOTAL:  msgpack_pack_uint32 (pk, self->children_total); break;
        case K_MEMBERS:         msgpack_pack_uint32 (pk, self->members); break;
        case K_LIMIT:           msgpack_pack_uint32 (pk, self->limit); break;
        case K_ARRAY_FIRST:     msgpack_pack_uint32 (pk, self->array_first); break;
        case K_ARRAY_STEP:      msgpack_pack_uint32 (pk, self->array_step); break;
        case K_MEMBER_COUNTS:
            msgpack_pack_array (pk, S_MEMBER_COUNTS);
            for (int state = 0; state < S_MEMBER_COUNTS; state++)
                msgpack_pack_uint64 (pk, self->member_counts [state]);
            break;
        case K_DEVICES:         s_pack_string (pk, self->devices); break;
        case K_ASSIGNED:        s_pack_string (pk, self->assigned); break;
        case K_PREEMPTIBLE:     msgpack_pack_uint8 (pk, 1); break;
    }
}

//  Pack an info as a map; -1 if a list is past its limit
static int
s_pack_info (msgpack_packer *pk, const void *value)
{
    const drover_taskinfo_t *self = (const drover_taskinfo_t *) value;
    if (self->nlabels > DROVER_LABELS_MAX || self->argc > DROVER_ARGV_MAX
    ||  self->nenv > DROVER_ENV_MAX || self->nattempts > DROVER_ATTEMPTS_MAX + 1
    ||  self->nparents > DROVER_AFTER_MAX || (self->nparents && !self->parents)
    ||  self->nchildren > DROVER_CHILDREN_LISTED || (self->nchildren && !self->children))
        return -1;
    uint32_t nkeys = 0;
    for (int key = 0; key < K_KEYS; key++)
        nkeys += s_workflow_key_set (self, key);
    msgpack_pack_map (pk, nkeys);
    for (int key = 0; key < K_KEYS; key++) {
        if (!s_workflow_key_set (self, key))
            continue;
        s_pack_key (pk, s_keys [key]);
        if (key >= K_WAITS) {
            s_pack_workflow_value (pk, self, key);
            continue;
        }
        switch (key) {
            case K_TASK:        msgpack_pack_uint64 (pk, self->task); break;
            case K_STATE:       msgpack_pack_uint8 (pk, self->state); break;
            case K_END:         msgpack_pack_uint8 (pk, self->end); break;
            case K_REASON:      s_pack_string (pk, self->reason); break;
            case K_OUTCOME:     msgpack_pack_uint8 (pk, self->outcome); break;
            case K_EXIT_CODE:   msgpack_pack_int32 (pk, self->exit_code); break;
            case K_SIGNAL:      msgpack_pack_int32 (pk, self->signal); break;
            case K_DURATION:    msgpack_pack_uint32 (pk, self->duration); break;
            case K_TRUNCATED:   msgpack_pack_uint32 (pk, self->truncated); break;
            case K_OUT_SIZE:    msgpack_pack_uint64 (pk, self->out_size); break;
            case K_ERR_SIZE:    msgpack_pack_uint64 (pk, self->err_size); break;
            case K_OWNER:       s_pack_string (pk, self->owner); break;
            case K_PRIORITY:    msgpack_pack_int32 (pk, self->priority); break;
            case K_PROCS:       msgpack_pack_uint32 (pk, self->procs); break;
            case K_MEM:         msgpack_pack_uint64 (pk, self->mem); break;
            case K_TIMEOUT:     msgpack_pack_uint32 (pk, self->timeout); break;
            case K_RETRIES:     msgpack_pack_uint32 (pk, self->retries); break;
            case K_RETRIES_LEFT: msgpack_pack_uint32 (pk, self->retries_left); break;
            case K_LOST:        msgpack_pack_uint32 (pk, self->lost); break;
            case K_LABELS:      s_pack_list (pk, self->labels, self->nlabels); break;
            case K_ARGV:        s_pack_list (pk, self->argv, self->argc); break;
            case K_CWD:         s_pack_string (pk, self->cwd); break;
            case K_ENV:         s_pack_list (pk, self->env, self->nenv); break;
            case K_INPUT_SIZE:  msgpack_pack_uint64 (pk, self->input_size); break;
            case K_KEY:         s_pack_string (pk, self->key); break;
            case K_QUEUED_AT:   s_pack_time (pk, self->queued_at); break;
            case K_STARTED_AT:  s_pack_time (pk, self->started_at); break;
            case K_ENDED_AT:    s_pack_time (pk, self->ended_at); break;
            case K_ATTEMPT:     msgpack_pack_uint32 (pk, self->attempt); break;
            case K_WORKER:      s_pack_string (pk, self->worker); break;
            case K_ATTEMPTS:
                msgpack_pack_array (pk, self->nattempts);
                for (uint32_t index = 0; index < self->nattempts; index++)
                    s_pack_attempt (pk, &self->attempts [index]);
                break;
            case K_DROPPED:     msgpack_pack_uint32 (pk, self->dropped); break;
        }
    }
    return 0;
}

//  Encode into a new buffer; NULL if a limit is broken
byte *
drover_taskinfo_encode (const drover_taskinfo_t *self, size_t *size_p)
{
    assert (self && size_p);
    size_t size = drover_mpack_measure (s_pack_info, self, DROVER_MSG_MAX);
    if (size == 0)
        return NULL;
    byte *data = (byte *) drover_mpack_malloc (size);
    drover_mpack_write (s_pack_info, self, data, size);
    *size_p = size;
    return data;
}

//  What encode_attempts packs
typedef struct {
    const drover_attempt_t *attempts;   //  the attempts
    uint32_t count;             //  how many
    uint32_t dropped;           //  earlier ones no longer kept
} s_attempts_t;

//  Pack [dropped, attempt...]
static int
s_pack_attempts (msgpack_packer *pk, const void *value)
{
    const s_attempts_t *attempts = (const s_attempts_t *) value;
    if (attempts->count > DROVER_ATTEMPTS_MAX)
        return -1;
    msgpack_pack_array (pk, 1 + attempts->count);
    msgpack_pack_uint32 (pk, attempts->dropped);
    for (uint32_t index = 0; index < attempts->count; index++)
        s_pack_attempt (pk, &attempts->attempts [index]);
    return 0;
}

//  Encode attempts into a new buffer
byte *
drover_taskinfo_encode_attempts (const drover_attempt_t *attempts, uint32_t count,
                                 uint32_t dropped, size_t *size_p)
{
    assert (size_p);
    s_attempts_t value = { attempts, count, dropped };
    size_t size = drover_mpack_measure (s_pack_attempts, &value, DROVER_MSG_MAX);
    if (size == 0)
        return NULL;
    byte *data = (byte *) drover_mpack_malloc (size);
    drover_mpack_write (s_pack_attempts, &value, data, size);
    *size_p = size;
    return data;
}


//  ---------------------------------------------------------------------
//  Reading

//  Read a signed time or count: any integer, negative read as 0
static bool
s_read_time (drover_mpack_cursor_t *cursor, int64_t *time)
{
    bool negative;
    uint64_t bits;
    if (!drover_mpack_read_integer (cursor, &s_errors [P_VALUE], &negative, &bits))
        return false;
    *time = negative? 0: bits > INT64_MAX? INT64_MAX: (int64_t) bits;
    return true;
}

//  Read a string into a new copy, NULL if empty
static bool
s_read_owned (drover_mpack_cursor_t *cursor, size_t max, char **text_p)
{
    const char *data;
    size_t length;
    if (!drover_mpack_read_str (cursor, P_STRING, 0, max, &data, &length))
        return false;
    free (*text_p);
    *text_p = length? drover_mpack_strndup (data, length): NULL;
    return true;
}

//  Read a list of at most max strings
static bool
s_read_list (drover_mpack_cursor_t *cursor, size_t max, char ***list_p, uint32_t *count_p)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, P_LIST, 0, max, 1, &count))
        return false;
    s_list_free (list_p, *count_p);
    *count_p = 0;
    if (count == 0)
        return true;
    *list_p = (char **) zmalloc (count * sizeof (char *));
    for (uint32_t index = 0; index < count; index++) {
        const char *data;
        size_t length;
        if (!drover_mpack_read_str (cursor, P_STRING, 0, S_STRING_MAX, &data, &length))
            return false;
        (*list_p) [index] = drover_mpack_strndup (data, length);
        (*count_p)++;
    }
    return true;
}

//  Find a key of length bytes in keys; -1 if unknown
static int
s_find_key (const char *const *keys, int nkeys, const char *key, size_t length)
{
    for (int index = 0; index < nkeys; index++)
        if (strlen (keys [index]) == length && memcmp (keys [index], key, length) == 0)
            return index;
    return -1;
}

//  Read one attempt map
static bool
s_read_attempt (drover_mpack_cursor_t *cursor, drover_attempt_t *attempt)
{
    memset (attempt, 0, sizeof *attempt);
    attempt->exit_code = -1;
    attempt->outcome = DROVER_ATTEMPT_NO_RESULT;
    uint32_t count;
    unsigned seen = 0;
    if (!drover_mpack_read_map (cursor, P_ATTEMPT, &count))
        return false;
    for (uint32_t pair = 0; pair < count; pair++) {
        const char *key;
        size_t length;
        if (!drover_mpack_read_str (cursor, P_KEY, 0, UINT32_MAX, &key, &length))
            return false;
        int known = s_find_key (s_attempt_keys, A_KEYS, key, length);
        if (known < 0) {
            if (!drover_mpack_walk (cursor, DROVER_DEPTH_MAX))
                return false;
            continue;
        }
        if (seen & (1u << known))
            return drover_mpack_fail (cursor, s_errors [P_KEY].invalid);
        seen |= 1u << known;
        bool ok = true;
        uint8_t flag;
        switch (known) {
            case A_ATTEMPT:     ok = drover_mpack_read_u32 (cursor, P_ATTEMPT, &attempt->attempt); break;
            case A_WORKER:      ok = drover_mpack_read_id (cursor, P_ATTEMPT, true, attempt->worker); break;
            case A_OFFERED_AT:  ok = s_read_time (cursor, &attempt->offered_at); break;
            case A_STARTED_AT:  ok = s_read_time (cursor, &attempt->started_at); break;
            case A_ENDED_AT:    ok = s_read_time (cursor, &attempt->ended_at); break;
            case A_OUTCOME:     ok = drover_mpack_read_u8 (cursor, P_ATTEMPT, 255, &attempt->outcome); break;
            case A_REQUEUED:
                //  msgpack true/false (0xc3/0xc2), or 0/1
                if (cursor->ptr < cursor->end && (*cursor->ptr == 0xc2 || *cursor->ptr == 0xc3)) {
                    attempt->requeued = *cursor->ptr++ == 0xc3;
                    break;
                }
                ok = drover_mpack_read_u8 (cursor, P_ATTEMPT, 1, &flag);
                attempt->requeued = flag == 1;
                break;
            case A_EXIT_CODE:   ok = drover_mpack_read_i32 (cursor, P_ATTEMPT, &attempt->exit_code); break;
            case A_SIGNAL:      ok = drover_mpack_read_i32 (cursor, P_ATTEMPT, &attempt->signal); break;
            case A_REASON:      ok = drover_mpack_read_fixed (cursor, P_STRING, DROVER_REASON_MAX, attempt->reason); break;
        }
        if (!ok)
            return false;
    }
    return true;
}

//  Read the attempts array of an info
static bool
s_read_attempts (drover_mpack_cursor_t *cursor, drover_taskinfo_t *self)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, P_LIST, 0, DROVER_ATTEMPTS_MAX + 1, S_ATTEMPT_MIN, &count))
        return false;
    free (self->attempts);
    self->attempts = NULL;
    self->nattempts = 0;
    if (count == 0)
        return true;
    self->attempts = (drover_attempt_t *) zmalloc (count * sizeof (drover_attempt_t));
    for (uint32_t index = 0; index < count; index++) {
        if (!s_read_attempt (cursor, &self->attempts [index]))
            return false;
        self->nattempts++;
    }
    return true;
}

//  Read the parents of an info: [kind, task, state] each (a newer broker's
//  kinds and states are kept, as the info's own state is)
static bool
s_read_parents (drover_mpack_cursor_t *cursor, drover_taskinfo_t *self)
{
    uint32_t count, fields;
    if (!drover_mpack_read_array (cursor, P_LIST, 0, DROVER_AFTER_MAX, S_PARENT_MIN, &count))
        return false;
    free (self->parents);
    self->parents = count? (drover_parent_t *) zmalloc (count * sizeof (drover_parent_t)): NULL;
    self->nparents = count;
    for (uint32_t index = 0; index < count; index++) {
        drover_parent_t *parent = &self->parents [index];
        if (!drover_mpack_read_array (cursor, P_PARENT, 3, UINT32_MAX, 1, &fields)
        ||  !drover_mpack_read_u8 (cursor, P_PARENT, 255, &parent->kind)
        ||  !drover_mpack_read_u64 (cursor, P_PARENT, &parent->task)
        ||  !drover_mpack_read_u8 (cursor, P_PARENT, 255, &parent->state)
        ||  !drover_mpack_skip_rest (cursor, fields, 3, 3))
            return false;
    }
    return true;
}

//  Read the children of an info: at most DROVER_CHILDREN_LISTED ids
static bool
s_read_children (drover_mpack_cursor_t *cursor, drover_taskinfo_t *self)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, P_LIST, 0, DROVER_CHILDREN_LISTED, 1, &count))
        return false;
    free (self->children);
    self->children = count? (uint64_t *) zmalloc (count * sizeof (uint64_t)): NULL;
    self->nchildren = count;
    for (uint32_t index = 0; index < count; index++)
        if (!drover_mpack_read_u64 (cursor, P_VALUE, &self->children [index]))
            return false;
    return true;
}

//  Read the member counts of an info: exactly one per task state
static bool
s_read_member_counts (drover_mpack_cursor_t *cursor, drover_taskinfo_t *self)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, P_COUNTS, S_MEMBER_COUNTS, S_MEMBER_COUNTS, 1, &count))
        return false;
    for (int state = 0; state < S_MEMBER_COUNTS; state++)
        if (!drover_mpack_read_u64 (cursor, P_COUNTS, &self->member_counts [state]))
            return false;
    return true;
}

//  Read one known key's value into self
static bool
s_read_value (drover_mpack_cursor_t *cursor, drover_taskinfo_t *self, int key)
{
    int64_t number;
    switch (key) {
        case K_TASK:        return drover_mpack_read_u64 (cursor, P_VALUE, &self->task);
        //  A newer broker's state or outcome is kept (PROTOCOL.md §12.3)
        case K_STATE:       return drover_mpack_read_u8 (cursor, P_VALUE, 255, &self->state);
        case K_END:         return drover_mpack_read_u8 (cursor, P_VALUE, 255, &self->end);
        case K_REASON:      return s_read_owned (cursor, DROVER_REASON_MAX, &self->reason);
        case K_OUTCOME:     return drover_mpack_read_u8 (cursor, P_VALUE, 255, &self->outcome);
        case K_EXIT_CODE:   return drover_mpack_read_i32 (cursor, P_VALUE, &self->exit_code);
        case K_SIGNAL:      return drover_mpack_read_i32 (cursor, P_VALUE, &self->signal);
        case K_DURATION:    return drover_mpack_read_u32 (cursor, P_VALUE, &self->duration);
        case K_TRUNCATED:   return drover_mpack_read_u32 (cursor, P_VALUE, &self->truncated);
        case K_OUT_SIZE:    return drover_mpack_read_u64 (cursor, P_VALUE, &self->out_size);
        case K_ERR_SIZE:    return drover_mpack_read_u64 (cursor, P_VALUE, &self->err_size);
        case K_OWNER:       return drover_mpack_read_fixed (cursor, P_STRING, DROVER_ID_MAX, self->owner);
        case K_PRIORITY:    return drover_mpack_read_i32 (cursor, P_VALUE, &self->priority);
        case K_PROCS:       return drover_mpack_read_u32 (cursor, P_VALUE, &self->procs);
        case K_MEM:         return drover_mpack_read_u64 (cursor, P_VALUE, &self->mem);
        case K_TIMEOUT:     return drover_mpack_read_u32 (cursor, P_VALUE, &self->timeout);
        case K_RETRIES:     return drover_mpack_read_u32 (cursor, P_VALUE, &self->retries);
        case K_RETRIES_LEFT: return drover_mpack_read_u32 (cursor, P_VALUE, &self->retries_left);
        case K_LOST:        return drover_mpack_read_u32 (cursor, P_VALUE, &self->lost);
        case K_LABELS:      return s_read_list (cursor, DROVER_LABELS_MAX, &self->labels, &self->nlabels);
        case K_ARGV:        return s_read_list (cursor, DROVER_ARGV_MAX, &self->argv, &self->argc);
        case K_CWD:         return s_read_owned (cursor, S_STRING_MAX, &self->cwd);
        case K_ENV:         return s_read_list (cursor, DROVER_ENV_MAX, &self->env, &self->nenv);
        case K_INPUT_SIZE:  return drover_mpack_read_u64 (cursor, P_VALUE, &self->input_size);
        case K_KEY:         return s_read_owned (cursor, DROVER_KEY_MAX, &self->key);
        case K_QUEUED_AT:   return s_read_time (cursor, &self->queued_at);
        case K_STARTED_AT:  return s_read_time (cursor, &self->started_at);
        case K_ENDED_AT:    return s_read_time (cursor, &self->ended_at);
        case K_ATTEMPT:     return drover_mpack_read_u32 (cursor, P_VALUE, &self->attempt);
        case K_WORKER:      return drover_mpack_read_fixed (cursor, P_STRING, DROVER_ID_MAX, self->worker);
        case K_ATTEMPTS:    return s_read_attempts (cursor, self);
        case K_DROPPED:
            if (!s_read_time (cursor, &number))
                return false;
            self->dropped = number > UINT32_MAX? UINT32_MAX: (uint32_t) number;
            return true;
        case K_WAITS:       return drover_mpack_read_u8 (cursor, P_VALUE, 255, &self->waits);
        case K_BEGIN:       return drover_mpack_read_u64 (cursor, P_VALUE, &self->begin);
        case K_DUE:         return drover_mpack_read_u64 (cursor, P_VALUE, &self->due);
        case K_RETRY_DELAY: return drover_mpack_read_u32 (cursor, P_VALUE, &self->retry_delay);
        case K_RETRY_MAX_DELAY: return drover_mpack_read_u32 (cursor, P_VALUE,
                                                              &self->retry_max_delay);
        case K_GROUP:       return drover_mpack_read_u64 (cursor, P_VALUE, &self->group);
        case K_INDEX:       return drover_mpack_read_u32 (cursor, P_VALUE, &self->index);
        case K_PARENTS:     return s_read_parents (cursor, self);
        case K_CHILDREN:    return s_read_children (cursor, self);
        case K_CHILDREN_TOTAL: return drover_mpack_read_u32 (cursor, P_VALUE,
                                                             &self->children_total);
        case K_MEMBERS:     return drover_mpack_read_u32 (cursor, P_VALUE, &self->members);
        case K_LIMIT:       return drover_mpack_read_u32 (cursor, P_VALUE, &self->limit);
        case K_ARRAY_FIRST: return drover_mpack_read_u32 (cursor, P_VALUE, &self->array_first);
        case K_ARRAY_STEP:  return drover_mpack_read_u32 (cursor, P_VALUE, &self->array_step);
        case K_MEMBER_COUNTS: return s_read_member_counts (cursor, self);
        case K_DEVICES:     return s_read_owned (cursor, DROVER_DEVICELIST_TEXT_MAX - 1,
                                                 &self->devices);
        case K_ASSIGNED:    return s_read_owned (cursor, DROVER_ASSIGNED_MAX, &self->assigned);
        case K_PREEMPTIBLE: return drover_mpack_read_u8 (cursor, P_VALUE, 255,
                                                         &self->preemptible);
    }
    return drover_mpack_fail (cursor, "internal: unknown task info key");
}

//  Walk the whole value first: one well-formed value, nothing after it
static bool
s_walk (drover_mpack_cursor_t *cursor, const byte *data, size_t size)
{
    if (!data || size == 0 || size > DROVER_MSG_MAX)
        return drover_mpack_fail (cursor, "task info: empty or too large");
    if (drover_mpack_walk (cursor, DROVER_DEPTH_MAX) && cursor->ptr != cursor->end)
        return drover_mpack_fail (cursor, DROVER_MPACK_TRAILING);
    cursor->ptr = data;
    return cursor->error == NULL;
}

//  Decode an info; NULL if malformed
drover_taskinfo_t *
drover_taskinfo_decode (const byte *data, size_t size, const char **error_p)
{
    assert (error_p);
    drover_mpack_cursor_t cursor = drover_mpack_cursor (data, size, s_errors);
    drover_taskinfo_t *self = drover_taskinfo_new ();
    uint64_t seen = 0;
    uint32_t count;
    if (s_walk (&cursor, data, size) && drover_mpack_read_map (&cursor, P_INFO, &count))
        for (uint32_t pair = 0; pair < count; pair++) {
            const char *key;
            size_t length;
            if (!drover_mpack_read_str (&cursor, P_KEY, 0, UINT32_MAX, &key, &length))
                break;
            int known = s_find_key (s_keys, K_KEYS, key, length);
            if (known < 0) {
                if (!drover_mpack_walk (&cursor, DROVER_DEPTH_MAX))
                    break;
                continue;
            }
            if (seen & (1ull << known)) {
                drover_mpack_fail (&cursor, s_errors [P_KEY].invalid);
                break;
            }
            seen |= 1ull << known;
            if (!s_read_value (&cursor, self, known))
                break;
        }
    if (!cursor.error && !(seen & (1ull << K_TASK)))
        drover_mpack_fail (&cursor, "task info: no task");
    if (cursor.error) {
        *error_p = cursor.error;
        drover_taskinfo_destroy (&self);
    }
    return self;
}

//  Decode [dropped, attempt...]; returns the count or -1
int
drover_taskinfo_decode_attempts (const byte *data, size_t size, drover_attempt_t *attempts,
                                 uint32_t *dropped_p)
{
    assert (attempts && dropped_p);
    drover_mpack_cursor_t cursor = drover_mpack_cursor (data, size, s_errors);
    uint32_t count;
    int64_t dropped;
    if (!s_walk (&cursor, data, size)
    ||  !drover_mpack_read_array (&cursor, P_LIST, 1, DROVER_ATTEMPTS_MAX + 1, 1, &count)
    ||  !s_read_time (&cursor, &dropped))
        return -1;
    *dropped_p = dropped > UINT32_MAX? UINT32_MAX: (uint32_t) dropped;
    for (uint32_t index = 0; index + 1 < count; index++)
        if (!s_read_attempt (&cursor, &attempts [index]))
            return -1;
    return (int) count - 1;
}
