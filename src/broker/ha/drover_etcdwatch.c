/*  =========================================================================
    drover_etcdwatch - one etcd watch over a key prefix, read without
    blocking (see the header)

    libcurl's multi interface in its socket form: libcurl tells us (the
    socket callback) which fd it wants read or written, and when its next
    timer falls due (the timer callback); the caller polls that fd and calls
    perform, which hands libcurl the fd's readiness or the timer. Only
    input is waited on: while libcurl wants to write (connecting, sending
    the request) the timeout is a few msec, a moment at each open. What
    comes is cut into lines; each line is one JSON object, checked before
    use: what etcd sends is data, not trusted.
    =========================================================================
*/

#include "drover_etcdwatch.h"
#include "drover_etcd.h"
#include <curl/curl.h>
#include <json-c/json.h>

//  msec between looks while libcurl waits to write (we wait on input only)
#define S_WRITE_WAIT    5

struct _drover_etcdwatch_t {
    CURLM *multi;               //  the multi handle, kept
    CURL *easy;                 //  the watch's transfer, NULL when closed
    struct curl_slist *headers; //  Content-Type, no Expect
    char *body;                 //  the request's body (libcurl borrows it)
    int fd;                     //  the socket libcurl watches, -1 for none
    bool wants_write;           //  libcurl wants the fd writable
    long timer;                 //  msec to libcurl's next timer, -1 for none
    int64_t timer_set_at;       //  msec (mono) the timer was set
    zchunk_t *line;             //  the line being read
    bool too_long;              //  the line passed DROVER_ETCDWATCH_LINE_MAX
    int found;                  //  bits found by the lines of this perform
    uint64_t changes;           //  events seen since created
    char error [256];           //  what broke the watch last
};

//  libcurl says which socket it wants watched, and for what
static int
s_socket_callback (CURL *easy, curl_socket_t socket, int what, void *arg, void *socket_arg)
{
    (void) easy;
    (void) socket_arg;
    drover_etcdwatch_t *self = (drover_etcdwatch_t *) arg;
    if (what == CURL_POLL_REMOVE) {
        if (self->fd == (int) socket)
            self->fd = -1;
        self->wants_write = false;
    }
    else {
        self->fd = (int) socket;
        self->wants_write = (what & CURL_POLL_OUT) != 0;
    }
    return 0;
}

//  libcurl says when its next timer falls due (-1: none)
static int
s_timer_callback (CURLM *multi, long timeout, void *arg)
{
    (void) multi;
    drover_etcdwatch_t *self = (drover_etcdwatch_t *) arg;
    self->timer = timeout;
    self->timer_set_at = zclock_mono ();
    return 0;
}

//  Create a watch, not yet open
drover_etcdwatch_t *
drover_etcdwatch_new (void)
{
    drover_etcdwatch_t *self = (drover_etcdwatch_t *) zmalloc (sizeof (drover_etcdwatch_t));
    curl_global_init (CURL_GLOBAL_DEFAULT);     //  counted: paired in destroy
    self->multi = curl_multi_init ();
    assert (self->multi);
    curl_multi_setopt (self->multi, CURLMOPT_SOCKETFUNCTION, s_socket_callback);
    curl_multi_setopt (self->multi, CURLMOPT_SOCKETDATA, self);
    curl_multi_setopt (self->multi, CURLMOPT_TIMERFUNCTION, s_timer_callback);
    curl_multi_setopt (self->multi, CURLMOPT_TIMERDATA, self);
    self->headers = curl_slist_append (NULL, "Content-Type: application/json");
    self->headers = curl_slist_append (self->headers, "Expect:");
    self->line = zchunk_new (NULL, 4096);
    self->fd = -1;
    self->timer = -1;
    return self;
}

//  Destroy the watch
void
drover_etcdwatch_destroy (drover_etcdwatch_t **self_p)
{
    assert (self_p);
    drover_etcdwatch_t *self = *self_p;
    if (!self)
        return;
    drover_etcdwatch_close (self);
    curl_multi_cleanup (self->multi);
    curl_slist_free_all (self->headers);
    curl_global_cleanup ();
    zchunk_destroy (&self->line);
    free (self);
    *self_p = NULL;
}

//  Close the connection, if open
void
drover_etcdwatch_close (drover_etcdwatch_t *self)
{
    assert (self);
    if (self->easy) {
        curl_multi_remove_handle (self->multi, self->easy);
        curl_easy_cleanup (self->easy);
        self->easy = NULL;
    }
    zstr_free (&self->body);
    self->fd = -1;
    self->wants_write = false;
    self->timer = -1;
    zchunk_set (self->line, NULL, 0);
    self->too_long = false;
}

//  Note what broke the watch (perform closes it: not from inside libcurl's
//  callbacks, where a transfer may not be removed)
static int
s_broken (drover_etcdwatch_t *self, const char *format, ...)
{
    va_list args;
    va_start (args, format);
    vsnprintf (self->error, sizeof self->error, format, args);
    va_end (args);
    return DROVER_ETCDWATCH_BROKEN;
}

//  True if object is a JSON true at field
static bool
s_true_at (json_object *object, const char *field)
{
    json_object *member;
    return json_object_object_get_ex (object, field, &member)
        && json_object_is_type (member, json_type_boolean) && json_object_get_boolean (member);
}

//  Handle one line of the stream
int
drover_etcdwatch_take_line (drover_etcdwatch_t *self, const char *line, size_t size)
{
    assert (self);
    while (size > 0 && (line [size - 1] == '\r' || line [size - 1] == ' '))
        size--;
    if (size == 0)
        return 0;               //  a keep-alive newline
    json_tokener *tokener = json_tokener_new ();
    json_object *answer = json_tokener_parse_ex (tokener, line, (int) size);
    json_tokener_free (tokener);
    int found = 0;
    json_object *result, *error, *events;
    if (!answer || !json_object_is_type (answer, json_type_object))
        found = s_broken (self, "etcd watch: a line that is not a JSON object (%zu bytes)", size);
    else
    if (json_object_object_get_ex (answer, "error", &error)) {
        json_object *message = NULL;
        if (json_object_is_type (error, json_type_object))
            json_object_object_get_ex (error, "message", &message);
        found = s_broken (self, "etcd watch: %s", message
                          && json_object_is_type (message, json_type_string)
                          ? json_object_get_string (message): "an error without a message");
    }
    else
    if (!json_object_object_get_ex (answer, "result", &result)
    ||  !json_object_is_type (result, json_type_object))
        found = s_broken (self, "etcd watch: a line without a result object");
    else
    if (s_true_at (result, "canceled"))
        found = s_broken (self, "etcd watch: cancelled by etcd");
    else {
        if (s_true_at (result, "created")) {
            found |= DROVER_ETCDWATCH_CREATED;
            self->changes = 0;
        }
        if (json_object_object_get_ex (result, "events", &events)) {
            if (!json_object_is_type (events, json_type_array))
                found = s_broken (self, "etcd watch: events that are not an array");
            else
            if (json_object_array_length (events) > 0) {
                self->changes += json_object_array_length (events);
                found |= DROVER_ETCDWATCH_CHANGED;
            }
        }
    }
    json_object_put (answer);
    return found;
}

//  libcurl hands us the stream in pieces: cut it into lines, take each
static size_t
s_write (char *data, size_t size, size_t count, void *arg)
{
    drover_etcdwatch_t *self = (drover_etcdwatch_t *) arg;
    size_t bytes = size * count;
    size_t at = 0;
    while (at < bytes) {
        char *newline = (char *) memchr (data + at, '\n', bytes - at);
        size_t piece = newline? (size_t) (newline - (data + at)): bytes - at;
        if (zchunk_size (self->line) + piece > DROVER_ETCDWATCH_LINE_MAX) {
            self->too_long = true;
            return 0;           //  libcurl stops with a write error
        }
        zchunk_extend (self->line, data + at, piece);
        at += piece;
        if (newline) {
            at++;
            self->found |= drover_etcdwatch_take_line (self, (const char *) zchunk_data (self->line),
                                                       zchunk_size (self->line));
            if (self->found & DROVER_ETCDWATCH_BROKEN)
                return 0;       //  libcurl stops; perform closes it
            zchunk_set (self->line, NULL, 0);
        }
    }
    return bytes;
}

//  Open a watch of prefix on endpoint
void
drover_etcdwatch_open (drover_etcdwatch_t *self, const char *endpoint, const char *prefix,
                       uint32_t connect_timeout)
{
    assert (self);
    assert (endpoint && prefix);
    drover_etcdwatch_close (self);
    self->body = drover_etcd_watch_body (prefix);
    char *url = zsys_sprintf ("%s/v3/watch", endpoint);
    self->easy = curl_easy_init ();
    assert (self->easy);
    CURL *easy = self->easy;
    curl_easy_setopt (easy, CURLOPT_URL, url);
    curl_easy_setopt (easy, CURLOPT_NOSIGNAL, 1L);          //  we run in a thread
    curl_easy_setopt (easy, CURLOPT_HTTPHEADER, self->headers);
    curl_easy_setopt (easy, CURLOPT_POSTFIELDS, self->body);
    curl_easy_setopt (easy, CURLOPT_POSTFIELDSIZE, (long) strlen (self->body));
    curl_easy_setopt (easy, CURLOPT_CONNECTTIMEOUT_MS, (long) (connect_timeout? connect_timeout: 1));
    curl_easy_setopt (easy, CURLOPT_WRITEFUNCTION, s_write);
    curl_easy_setopt (easy, CURLOPT_WRITEDATA, self);
    curl_easy_setopt (easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt (easy, CURLOPT_TCP_KEEPALIVE, 1L);
    free (url);
    curl_multi_add_handle (self->multi, easy);
}

//  True if a watch is open
bool
drover_etcdwatch_is_open (drover_etcdwatch_t *self)
{
    assert (self);
    return self->easy != NULL;
}

//  The fd to wait on
int
drover_etcdwatch_fd (drover_etcdwatch_t *self)
{
    assert (self);
    return self->easy? self->fd: -1;
}

//  msec until perform is due anyway
int
drover_etcdwatch_timeout (drover_etcdwatch_t *self)
{
    assert (self);
    if (!self->easy)
        return -1;
    if (self->wants_write)
        return S_WRITE_WAIT;
    if (self->timer < 0)
        return -1;
    int64_t left = self->timer_set_at + self->timer - zclock_mono ();
    return left > 0? (int) left: 0;
}

//  Read and write what can be without blocking
int
drover_etcdwatch_perform (drover_etcdwatch_t *self, bool readable)
{
    assert (self);
    if (!self->easy)
        return 0;
    self->found = 0;
    int running = 0;
    int64_t now = zclock_mono ();
    bool timer_due = self->timer >= 0 && now >= self->timer_set_at + self->timer;
    if (self->fd != -1 && (readable || self->wants_write)) {
        int mask = (readable? CURL_CSELECT_IN: 0) | (self->wants_write? CURL_CSELECT_OUT: 0);
        curl_multi_socket_action (self->multi, self->fd, mask, &running);
    }
    if (self->easy && (timer_due || self->fd == -1)) {
        curl_multi_socket_action (self->multi, CURL_SOCKET_TIMEOUT, 0, &running);
        //  A timer fires once. libcurl sets the next one through its
        //  callback, but does not always say when none is left (its
        //  connect timeout, once connected): a timer kept after it fell
        //  due was due again at every turn, and a quiet watch spun its
        //  thread. What libcurl waits for now is the next timer; one that
        //  is still due (we came a fraction of a msec early) is looked at
        //  again a msec later, not at once.
        long next = -1;
        curl_multi_timeout (self->multi, &next);
        self->timer = next == 0? 1: next;
        self->timer_set_at = zclock_mono ();
    }
    if (self->found & DROVER_ETCDWATCH_BROKEN) {
        drover_etcdwatch_close (self);
        return self->found;     //  a line broke it
    }
    int queued;
    CURLMsg *message;
    while (self->easy && (message = curl_multi_info_read (self->multi, &queued))) {
        if (message->msg != CURLMSG_DONE)
            continue;
        self->found |= DROVER_ETCDWATCH_BROKEN;
        long status = 0;
        curl_easy_getinfo (self->easy, CURLINFO_RESPONSE_CODE, &status);
        CURLcode code = message->data.result;
        if (code != CURLE_OK)
            s_broken (self, "etcd watch: %s", self->too_long
                      ? "a line too long": curl_easy_strerror (code));
        else
            s_broken (self, "etcd watch: the stream ended (HTTP %ld)", status);
        drover_etcdwatch_close (self);
    }
    return self->found;
}

//  What broke the watch last
const char *
drover_etcdwatch_error (drover_etcdwatch_t *self)
{
    assert (self);
    return self->error;
}

//  Changes seen since created
uint64_t
drover_etcdwatch_changes (drover_etcdwatch_t *self)
{
    assert (self);
    return self->changes;
}
