/*  =========================================================================
    drover_exec - the exec body codec: what a task runs (PROTOCOL.md §7.0)

    The body is a msgpack array [argv, env, cwd, input], carried opaque in
    TASK SUBMIT and TASK OFFER. The client encodes it, the broker only
    validates it (drover_exec_validate, on every SUBMIT), the worker
    decodes it to start the process. Encoding measures first, then packs
    into one buffer of exactly that size. Decoding walks the whole body
    (structure, depth 2, trailing bytes), then reads it; validate runs the
    same reading without keeping anything, so the two cannot disagree.
    The broker changes a body only to add env entries to it (an array
    element's DROVER_ARRAY_ID and INDEX): decode, put, encode again.
    =========================================================================
*/

#include "drover_exec.h"
#include "drover_mpack.h"

//  The parts of an exec body, for error texts
typedef enum {
    P_BODY, P_ARGV, P_ENV, P_CWD, P_INPUT, P_COUNT
} s_part_t;

static const drover_mpack_errors_t
s_errors [P_COUNT] = {
    [P_BODY]        = DROVER_MPACK_ERRORS ("exec body", "invalid"),
    [P_ARGV]        = DROVER_MPACK_ERRORS ("argv", "invalid"),
    [P_ENV]         = DROVER_MPACK_ERRORS ("env", "not NAME=value"),
    [P_CWD]         = DROVER_MPACK_ERRORS ("cwd", "invalid"),
    [P_INPUT]       = DROVER_MPACK_ERRORS ("input", "invalid"),
};

//  The fewest wire bytes an env entry takes: str header + "A="; an env
//  array whose count times this is more than the bytes left is refused
//  before it is allocated (PROTOCOL.md §13)
#define S_ENV_MIN           3

//  Create an empty exec body; never returns NULL
drover_exec_t *
drover_exec_new (void)
{
    return (drover_exec_t *) zmalloc (sizeof (drover_exec_t));
}

//  Free what an exec body owns and zero it
static void
s_exec_empty (drover_exec_t *self)
{
    for (uint32_t index = 0; self->argv && self->argv [index]; index++)
        free (self->argv [index]);
    for (uint32_t index = 0; self->env && self->env [index]; index++)
        free (self->env [index]);
    free (self->argv);
    free (self->env);
    free (self->cwd);
    free (self->input);
    memset (self, 0, sizeof (drover_exec_t));
}

//  Destroy an exec body; harmless on NULL
void
drover_exec_destroy (drover_exec_t **self_p)
{
    assert (self_p);
    if (*self_p) {
        s_exec_empty (*self_p);
        free (*self_p);
        *self_p = NULL;
    }
}

//  Set argv (copied); argc >= 1. Returns 0, or -1 past DROVER_ARGV_MAX or
//  DROVER_STRING_MAX (argv is then unchanged).
int
drover_exec_set_argv (drover_exec_t *self, int argc, const char **argv)
{
    assert (self);
    if (argc < 1 || argc > DROVER_ARGV_MAX || !argv)
        return -1;
    for (int index = 0; index < argc; index++)
        if (!argv [index] || strnlen (argv [index], DROVER_STRING_MAX + 1) > DROVER_STRING_MAX)
            return -1;
    char **copy = (char **) drover_mpack_malloc ((argc + 1) * sizeof (char *));
    for (int index = 0; index < argc; index++)
        copy [index] = drover_mpack_strndup (argv [index], strlen (argv [index]));
    copy [argc] = NULL;
    for (uint32_t index = 0; self->argv && self->argv [index]; index++)
        free (self->argv [index]);
    free (self->argv);
    self->argv = copy;
    self->argc = (uint32_t) argc;
    return 0;
}

//  True if length bytes are an environment entry "NAME=value", NAME non-empty
static bool
s_env_valid (const char *entry, size_t length)
{
    const char *equals = (const char *) memchr (entry, '=', length);
    return equals && equals > entry && !memchr (entry, 0, length);
}

//  Slots the env array has room for with nenv entries (plus its NULL):
//  powers of two, so adding n entries costs O(n) in all
static size_t
s_env_capacity (uint32_t nenv)
{
    size_t capacity = 4;
    while (capacity < (size_t) nenv + 1)
        capacity *= 2;
    return capacity;
}

//  Add one "NAME=value" environment entry (copied). Returns 0 or -1.
int
drover_exec_add_env (drover_exec_t *self, const char *entry)
{
    assert (self);
    if (!entry || self->nenv >= DROVER_ENV_MAX)
        return -1;
    size_t length = strnlen (entry, DROVER_STRING_MAX + 1);
    if (length > DROVER_STRING_MAX || !s_env_valid (entry, length))
        return -1;
    if (!self->env || self->nenv + 2 > s_env_capacity (self->nenv)) {
        size_t capacity = s_env_capacity (self->nenv + 1);
        char **env = (char **) realloc (self->env, capacity * sizeof (char *));
        assert (env);
        self->env = env;
    }
    self->env [self->nenv++] = drover_mpack_strndup (entry, length);
    self->env [self->nenv] = NULL;
    return 0;
}

//  Set the working directory (copied, NULL clears)
void
drover_exec_set_cwd (drover_exec_t *self, const char *cwd)
{
    assert (self);
    char *copy = cwd? strdup (cwd): NULL;
    free (self->cwd);
    self->cwd = copy;
}

//  Set the stdin bytes (copied, NULL clears)
void
drover_exec_set_input (drover_exec_t *self, const byte *input, size_t size)
{
    assert (self);
    byte *copy = drover_mpack_memdup (input, size);
    free (self->input);
    self->input = copy;
    self->input_size = copy? size: 0;
}

//  Pack an exec body (a drover_exec_t); -1 if a limit is broken
static int
s_exec_pack (msgpack_packer *pk, const void *value)
{
    const drover_exec_t *self = (const drover_exec_t *) value;
    if (self->argc < 1 || self->argc > DROVER_ARGV_MAX || !self->argv
    ||  self->nenv > DROVER_ENV_MAX || (self->nenv && !self->env)
    ||  self->input_size > DROVER_INPUT_MAX || (self->input_size && !self->input))
        return -1;
    msgpack_pack_array (pk, 4);
    msgpack_pack_array (pk, self->argc);
    for (uint32_t index = 0; index < self->argc; index++)
        if (!self->argv [index]
        ||  drover_mpack_pack_text (pk, self->argv [index], DROVER_STRING_MAX))
            return -1;
    msgpack_pack_array (pk, self->nenv);
    for (uint32_t index = 0; index < self->nenv; index++) {
        const char *entry = self->env [index];
        size_t length = entry? strnlen (entry, DROVER_STRING_MAX + 1): 0;
        if (!entry || length > DROVER_STRING_MAX || !s_env_valid (entry, length))
            return -1;
        drover_mpack_pack_str (pk, entry, length);
    }
    if (self->cwd && *self->cwd) {
        if (drover_mpack_pack_text (pk, self->cwd, DROVER_STRING_MAX))
            return -1;
    }
    else
        msgpack_pack_nil (pk);
    if (self->input && self->input_size)
        drover_mpack_pack_bin (pk, self->input, self->input_size);
    else
        msgpack_pack_nil (pk);
    return 0;
}

//  Encode into a fresh buffer the caller frees; NULL if a limit is broken
byte *
drover_exec_encode (drover_exec_t *self, size_t *size_p)
{
    assert (self);
    assert (size_p);
    size_t size = drover_mpack_measure (s_exec_pack, self, DROVER_BODY_MAX);
    if (size == 0)
        return NULL;            //  a limit is broken
    byte *data = (byte *) drover_mpack_malloc (size);
    drover_mpack_write (s_exec_pack, self, data, size);
    *size_p = size;
    return data;
}

//  Read a string array (argv or env) into a new NULL-terminated array, or
//  only check it if strings_p is NULL
static bool
s_exec_read_strings (drover_mpack_cursor_t *cursor, int field, size_t min, size_t max,
                     char ***strings_p, uint32_t *count_p)
{
    uint32_t count;
    if (!drover_mpack_read_array (cursor, field, min, max, field == P_ENV? S_ENV_MIN: 1, &count))
        return false;
    char **strings = NULL;
    if (strings_p) {
        //  Sized as add_env grows it, so that entries can be added later
        strings = (char **) zmalloc (s_env_capacity (count) * sizeof (char *));
        *strings_p = strings;   //  owned by the exec from here, even if we fail
    }
    for (uint32_t index = 0; index < count; index++) {
        const char *text;
        size_t length;
        if (!drover_mpack_read_str (cursor, field, 0, DROVER_STRING_MAX, &text, &length))
            return false;
        if (field == P_ENV && !s_env_valid (text, length))
            return drover_mpack_fail (cursor, s_errors [field].invalid);
        if (strings)
            strings [index] = drover_mpack_strndup (text, length);
        if (count_p)
            *count_p = index + 1;
    }
    return true;
}

//  Parse an exec body into self (empty on entry), or only check it if self
//  is NULL. Returns NULL or what was wrong.
static const char *
s_exec_parse (drover_exec_t *self, const byte *data, size_t size)
{
    drover_mpack_cursor_t cursor = drover_mpack_cursor (data, size, s_errors);
    if (!data || size == 0)
        return "exec body: empty";
    if (size > DROVER_BODY_MAX)
        return "exec body: too large";
    if (!drover_mpack_walk (&cursor, 2))
        return cursor.error;
    if (cursor.ptr != cursor.end)
        return DROVER_MPACK_TRAILING;
    cursor.ptr = data;
    uint32_t count;
    const char *cwd;
    size_t cwd_length;
    const byte *input;
    size_t input_size;
    if (!drover_mpack_read_array (&cursor, P_BODY, 4, 4, 1, &count)
    ||  !s_exec_read_strings (&cursor, P_ARGV, 1, DROVER_ARGV_MAX,
                              self? &self->argv: NULL, self? &self->argc: NULL)
    ||  !s_exec_read_strings (&cursor, P_ENV, 0, DROVER_ENV_MAX,
                              self? &self->env: NULL, self? &self->nenv: NULL))
        return cursor.error;
    if (!drover_mpack_read_nil (&cursor)) {
        if (!drover_mpack_read_str (&cursor, P_CWD, 1, DROVER_STRING_MAX, &cwd, &cwd_length))
            return cursor.error;
        if (self)
            self->cwd = drover_mpack_strndup (cwd, cwd_length);
    }
    if (!drover_mpack_read_nil (&cursor)) {
        if (!drover_mpack_read_bin (&cursor, P_INPUT, DROVER_INPUT_MAX, &input, &input_size))
            return cursor.error;
        if (self) {
            self->input = drover_mpack_memdup (input, input_size);
            self->input_size = self->input? input_size: 0;
        }
    }
    return NULL;
}

//  Decode a body into self (emptied first). Returns 0 or -2 with *error_p set.
int
drover_exec_decode (drover_exec_t *self, const byte *data, size_t size,
                    const char **error_p)
{
    assert (self);
    s_exec_empty (self);
    const char *error = s_exec_parse (self, data, size);
    if (error_p)
        *error_p = error;
    if (!error)
        return 0;
    s_exec_empty (self);
    return -2;
}

//  Check a body without keeping it. Returns 0 or -2 with *error_p set.
int
drover_exec_validate (const byte *data, size_t size, const char **error_p)
{
    const char *error = s_exec_parse (NULL, data, size);
    if (error_p)
        *error_p = error;
    return error? -2: 0;
}

//  Length of an entry's NAME and its '=' (entry is valid NAME=value)
static size_t
s_env_name_size (const char *entry)
{
    return (size_t) (strchr (entry, '=') - entry) + 1;
}

//  Put entry (valid, length bytes) into self's env: it replaces the first
//  entry of the same NAME, and later ones of that NAME go; else it is added.
//  Returns 0, or -1 past DROVER_ENV_MAX.
static int
s_exec_put_env (drover_exec_t *self, const char *entry, size_t length)
{
    size_t name_size = s_env_name_size (entry);
    uint32_t kept = 0;
    bool put = false;
    for (uint32_t index = 0; index < self->nenv; index++) {
        char *other = self->env [index];
        if (strncmp (other, entry, name_size) == 0) {
            free (other);
            if (put)
                continue;       //  a later one of the same NAME: dropped
            other = drover_mpack_strndup (entry, length);
            put = true;
        }
        self->env [kept++] = other;
    }
    if (self->env)
        self->env [kept] = NULL;
    self->nenv = kept;
    return put? 0: drover_exec_add_env (self, entry);
}

//  Return a new body: body with entries put into its env, each replacing
//  the entry of the same NAME or added. NULL on a bad body, a bad entry, or
//  past a limit.
byte *
drover_exec_body_with_env (const byte *body, size_t size, const char **entries,
                           size_t count, size_t *size_p)
{
    assert (size_p);
    if (count && !entries)
        return NULL;
    drover_exec_t *exec = drover_exec_new ();
    byte *result = NULL;
    if (drover_exec_decode (exec, body, size, NULL) == 0) {
        size_t index;
        for (index = 0; index < count; index++) {
            const char *entry = entries [index];
            size_t length = entry? strnlen (entry, DROVER_STRING_MAX + 1): 0;
            if (!entry || length > DROVER_STRING_MAX || !s_env_valid (entry, length)
            ||  s_exec_put_env (exec, entry, length))
                break;
        }
        if (index == count)
            result = drover_exec_encode (exec, size_p);
    }
    drover_exec_destroy (&exec);
    return result;
}
