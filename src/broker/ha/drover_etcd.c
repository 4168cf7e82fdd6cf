/*  =========================================================================
    drover_etcd - a small etcd v3 client over its JSON gateway (etcd 3.4's
    /v3/... endpoints), with libcurl and json-c

    Each call builds a JSON request (keys and values base64, 64-bit numbers
    as decimal strings, as the gateway takes them), POSTs it with one curl
    handle kept between calls (its connection is reused), and reads the
    answer: HTTP 200 with the response object, or an error object with
    etcd's message and gRPC code. Every field of an answer is checked
    before use: what etcd sends is data, not trusted. The gateway leaves
    out fields at their default (a count of 0, a false "succeeded"), so a
    missing number is 0.
    =========================================================================
*/

#include "drover_etcd.h"
#include <curl/curl.h>
#include <json-c/json.h>

//  gRPC's code for "not found" (a lease etcd does not have)
#define S_GRPC_NOT_FOUND    5

struct _drover_etcd_t {
    char **endpoints;           //  the endpoints, without a trailing '/'
    size_t endpoint_count;      //  how many
    size_t current;             //  index of the endpoint the next call goes to
    uint32_t timeout;           //  msec a call may take
    CURL *curl;                 //  one handle for every call (keeps its connection)
    struct curl_slist *headers; //  Content-Type: application/json
    zchunk_t *answer;           //  the answer being read
    bool answer_too_big;        //  the answer passed DROVER_ETCD_ANSWER_MAX
    char error [256];           //  what the last failure was
    int64_t revision;           //  header revision of the last answer
};

//  Split endpoints at commas into self->endpoints; -1 and error if one is bad
static int
s_parse_endpoints (drover_etcd_t *self, const char *endpoints, char **error_p)
{
    char *copy = strdup (endpoints? endpoints: "");
    assert (copy);
    size_t commas = 0;
    for (const char *scan = copy; *scan; scan++)
        commas += *scan == ',';
    self->endpoints = (char **) zmalloc ((commas + 1) * sizeof (char *));
    char *save = NULL;
    char *token = strtok_r (copy, ",", &save);
    int rc = 0;
    while (token) {
        while (*token == ' ')
            token++;
        size_t length = strlen (token);
        while (length > 0 && (token [length - 1] == ' ' || token [length - 1] == '/'))
            token [--length] = 0;
        bool scheme_ok = strncmp (token, "http://", 7) == 0 || strncmp (token, "https://", 8) == 0;
        bool host_ok = scheme_ok && strlen (strstr (token, "://") + 3) > 0;
        if (!host_ok) {
            if (error_p)
                *error_p = zsys_sprintf ("etcd: endpoint \"%s\" is not an http:// or https:// URL",
                                         token);
            rc = -1;
            break;
        }
        self->endpoints [self->endpoint_count++] = strdup (token);
        token = strtok_r (NULL, ",", &save);
    }
    if (rc == 0 && self->endpoint_count == 0) {
        if (error_p)
            *error_p = strdup ("etcd: no endpoint given (expected http://host:port[,...])");
        rc = -1;
    }
    free (copy);
    return rc;
}

//  Create a client
drover_etcd_t *
drover_etcd_new (const char *endpoints, uint32_t timeout, char **error_p)
{
    drover_etcd_t *self = (drover_etcd_t *) zmalloc (sizeof (drover_etcd_t));
    if (s_parse_endpoints (self, endpoints, error_p) == -1) {
        drover_etcd_destroy (&self);
        return NULL;
    }
    curl_global_init (CURL_GLOBAL_DEFAULT);     //  counted: paired in destroy
    self->curl = curl_easy_init ();
    assert (self->curl);
    self->headers = curl_slist_append (NULL, "Content-Type: application/json");
    self->answer = zchunk_new (NULL, 4096);
    drover_etcd_set_timeout (self, timeout);
    return self;
}

//  Destroy the client
void
drover_etcd_destroy (drover_etcd_t **self_p)
{
    assert (self_p);
    drover_etcd_t *self = *self_p;
    if (!self)
        return;
    for (size_t index = 0; index < self->endpoint_count; index++)
        free (self->endpoints [index]);
    free (self->endpoints);
    if (self->curl) {
        curl_easy_cleanup (self->curl);
        curl_slist_free_all (self->headers);
        curl_global_cleanup ();
    }
    zchunk_destroy (&self->answer);
    free (self);
    *self_p = NULL;
}

//  Change the timeout
void
drover_etcd_set_timeout (drover_etcd_t *self, uint32_t timeout)
{
    assert (self);
    self->timeout = timeout > 0? timeout: 1;
}

//  The endpoint the next call goes to
const char *
drover_etcd_endpoint (drover_etcd_t *self)
{
    assert (self);
    return self->endpoints [self->current];
}

//  The last failure
const char *
drover_etcd_error (drover_etcd_t *self)
{
    assert (self);
    return self->error;
}

//  The revision of the last answer
int64_t
drover_etcd_revision (drover_etcd_t *self)
{
    assert (self);
    return self->revision;
}

//  curl hands us the answer in pieces: keep them, up to the cap
static size_t
s_write_answer (char *data, size_t size, size_t count, void *arg)
{
    drover_etcd_t *self = (drover_etcd_t *) arg;
    size_t bytes = size * count;
    if (zchunk_size (self->answer) + bytes > DROVER_ETCD_ANSWER_MAX) {
        self->answer_too_big = true;
        return 0;               //  curl stops with a write error
    }
    zchunk_extend (self->answer, data, bytes);
    return bytes;
}

//  Read a 64-bit number field (the gateway writes them as decimal strings;
//  a missing field is 0); -1 if it is there but not a number
static int
s_int64 (json_object *object, const char *field, int64_t *value_p)
{
    *value_p = 0;
    json_object *member;
    if (!json_object_is_type (object, json_type_object)
    ||  !json_object_object_get_ex (object, field, &member))
        return 0;
    if (json_object_is_type (member, json_type_int)) {
        *value_p = json_object_get_int64 (member);
        return 0;
    }
    if (!json_object_is_type (member, json_type_string))
        return -1;
    const char *text = json_object_get_string (member);
    char *end;
    errno = 0;
    long long number = strtoll (text, &end, 10);
    if (errno || end == text || *end)
        return -1;
    *value_p = number;
    return 0;
}

//  Note etcd's message and code from an error answer, if it is one
static void
s_note_etcd_error (drover_etcd_t *self, json_object *answer, long status, int64_t *code_p)
{
    json_object *message = NULL;
    json_object *error = NULL;
    *code_p = -1;
    if (json_object_object_get_ex (answer, "error", &error)
    &&  json_object_is_type (error, json_type_object)) {
        //  a stream's error: {"error":{"grpc_code":N,"message":"..."}}
        json_object_object_get_ex (error, "message", &message);
        s_int64 (error, "grpc_code", code_p);
    }
    else {
        json_object_object_get_ex (answer, "message", &message);
        s_int64 (answer, "code", code_p);
    }
    const char *text = message && json_object_is_type (message, json_type_string)
                     ? json_object_get_string (message): "no message";
    snprintf (self->error, sizeof self->error, "etcd %s: %s (HTTP %ld, code %" PRId64 ")",
              self->endpoints [self->current], text, status, *code_p);
}

//  POST request (ours: freed here) to path on the current endpoint. Returns
//  0 and *answer_p (ours) for a success, -2 for an error answer from etcd
//  (*code_p its gRPC code), -1 for no answer (then the next call goes to
//  the next endpoint). A streamed answer's {"result": ...} is unwrapped.
static int
s_call (drover_etcd_t *self, const char *path, json_object *request, json_object **answer_p,
        int64_t *code_p)
{
    *answer_p = NULL;
    *code_p = -1;
    const char *endpoint = self->endpoints [self->current];
    char *url = zsys_sprintf ("%s%s", endpoint, path);
    const char *body = json_object_to_json_string_ext (request, JSON_C_TO_STRING_PLAIN);
    zchunk_set (self->answer, NULL, 0);
    self->answer_too_big = false;

    CURL *curl = self->curl;
    curl_easy_reset (curl);
    curl_easy_setopt (curl, CURLOPT_URL, url);
    curl_easy_setopt (curl, CURLOPT_NOSIGNAL, 1L);          //  we run in a thread
    curl_easy_setopt (curl, CURLOPT_HTTPHEADER, self->headers);
    curl_easy_setopt (curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt (curl, CURLOPT_POSTFIELDSIZE, (long) strlen (body));
    curl_easy_setopt (curl, CURLOPT_TIMEOUT_MS, (long) self->timeout);
    curl_easy_setopt (curl, CURLOPT_CONNECTTIMEOUT_MS, (long) self->timeout);
    curl_easy_setopt (curl, CURLOPT_WRITEFUNCTION, s_write_answer);
    curl_easy_setopt (curl, CURLOPT_WRITEDATA, self);
    curl_easy_setopt (curl, CURLOPT_PROTOCOLS_STR, "http,https");
    CURLcode result = curl_easy_perform (curl);
    free (url);
    json_object_put (request);

    if (result != CURLE_OK) {
        snprintf (self->error, sizeof self->error, "etcd %s: %s", endpoint,
                  self->answer_too_big? "answer too big": curl_easy_strerror (result));
        self->current = (self->current + 1) % self->endpoint_count;
        return -1;              //  no answer: the next call tries the next endpoint
    }
    long status = 0;
    curl_easy_getinfo (curl, CURLINFO_RESPONSE_CODE, &status);
    json_tokener *tokener = json_tokener_new ();
    json_object *answer = json_tokener_parse_ex (tokener, (const char *) zchunk_data (self->answer),
                                                 (int) zchunk_size (self->answer));
    json_tokener_free (tokener);
    if (!answer || !json_object_is_type (answer, json_type_object)) {
        snprintf (self->error, sizeof self->error, "etcd %s: HTTP %ld, an answer that is not a"
                  " JSON object (%zu bytes)", endpoint, status, zchunk_size (self->answer));
        json_object_put (answer);
        self->current = (self->current + 1) % self->endpoint_count;
        return -1;              //  not etcd's gateway, or a broken one
    }
    json_object *result_object;
    if (json_object_object_get_ex (answer, "result", &result_object)
    &&  json_object_is_type (result_object, json_type_object)) {
        json_object_get (result_object);
        json_object_put (answer);
        answer = result_object;
    }
    json_object *error;
    if (status != 200 || json_object_object_get_ex (answer, "error", &error)) {
        s_note_etcd_error (self, answer, status, code_p);
        json_object_put (answer);
        return -2;              //  etcd said no
    }
    json_object *header;
    int64_t revision;
    if (json_object_object_get_ex (answer, "header", &header)
    &&  s_int64 (header, "revision", &revision) == 0 && revision > 0)
        self->revision = revision;
    *answer_p = answer;
    return 0;
}

//  The standard base64 alphabet (RFC 4648), as etcd's gateway writes bytes
static const char s_alphabet [] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

//  A JSON string with the base64 of size bytes at data (padded)
static json_object *
s_base64 (const void *data, size_t size)
{
    const byte *bytes = (const byte *) data;
    char *text = (char *) malloc ((size + 2) / 3 * 4 + 1);
    assert (text);
    size_t out = 0;
    for (size_t at = 0; at < size; at += 3) {
        uint32_t group = (uint32_t) bytes [at] << 16;
        if (at + 1 < size)
            group |= (uint32_t) bytes [at + 1] << 8;
        if (at + 2 < size)
            group |= bytes [at + 2];
        text [out++] = s_alphabet [(group >> 18) & 63];
        text [out++] = s_alphabet [(group >> 12) & 63];
        text [out++] = at + 1 < size? s_alphabet [(group >> 6) & 63]: '=';
        text [out++] = at + 2 < size? s_alphabet [group & 63]: '=';
    }
    text [out] = 0;
    json_object *string = json_object_new_string (text);
    free (text);
    return string;
}

//  Decode base64 text (padded, as etcd writes it) into a fresh buffer with
//  a NUL after the bytes; NULL if it is not valid base64
static char *
s_unbase64_text (const char *text, size_t *size_p)
{
    size_t length = strlen (text);
    if (length % 4)
        return NULL;
    char *data = (char *) malloc (length / 4 * 3 + 1);
    assert (data);
    size_t out = 0;
    for (size_t at = 0; at < length; at += 4) {
        uint32_t group = 0;
        int pads = 0;
        for (int index = 0; index < 4; index++) {
            char letter = text [at + index];
            const char *found = letter? strchr (s_alphabet, letter): NULL;
            if (letter == '=' && at + 4 == length && index >= 2
            &&  (index == 3 || text [at + 3] == '='))
                pads++;
            else
            if (!found || pads) {
                free (data);
                return NULL;        //  not base64
            }
            group = (group << 6) | (found? (uint32_t) (found - s_alphabet): 0);
        }
        data [out++] = (char) (group >> 16);
        if (pads < 2)
            data [out++] = (char) (group >> 8);
        if (pads < 1)
            data [out++] = (char) group;
    }
    data [out] = 0;
    *size_p = out;
    return data;
}

//  A JSON number written as the gateway takes 64-bit numbers
static json_object *
s_number (int64_t number)
{
    char text [32];
    snprintf (text, sizeof text, "%" PRId64, number);
    return json_object_new_string (text);
}

//  Grant a lease
int
drover_etcd_grant (drover_etcd_t *self, int64_t ttl, int64_t *lease_p, int64_t *granted_p)
{
    assert (self);
    assert (lease_p);
    json_object *request = json_object_new_object ();
    json_object_object_add (request, "TTL", s_number (ttl));
    json_object *answer;
    int64_t code;
    if (s_call (self, "/v3/lease/grant", request, &answer, &code))
        return -1;
    int64_t lease, granted;
    int rc = 0;
    if (s_int64 (answer, "ID", &lease) || lease == 0 || s_int64 (answer, "TTL", &granted)
    ||  granted <= 0) {
        snprintf (self->error, sizeof self->error, "etcd: a lease grant without a valid ID and TTL");
        rc = -1;
    }
    else {
        *lease_p = lease;
        if (granted_p)
            *granted_p = granted;
    }
    json_object_put (answer);
    return rc;
}

//  Renew a lease once
int64_t
drover_etcd_keepalive (drover_etcd_t *self, int64_t lease)
{
    assert (self);
    json_object *request = json_object_new_object ();
    json_object_object_add (request, "ID", s_number (lease));
    json_object *answer;
    int64_t code;
    int rc = s_call (self, "/v3/lease/keepalive", request, &answer, &code);
    if (rc == -2 && code == S_GRPC_NOT_FOUND)
        return DROVER_ETCD_GONE;
    if (rc)
        return -1;
    int64_t ttl;
    int64_t id;
    int64_t result = -1;
    if (s_int64 (answer, "TTL", &ttl) || s_int64 (answer, "ID", &id) || ttl < 0)
        snprintf (self->error, sizeof self->error, "etcd: a keep-alive answer without a valid TTL");
    else
    if (id != lease && id != 0)
        snprintf (self->error, sizeof self->error, "etcd: a keep-alive answer for another lease");
    else {
        result = ttl;           //  0: etcd no longer has it
        if (ttl == 0)
            snprintf (self->error, sizeof self->error, "etcd: lease %" PRIx64 " is gone",
                      (uint64_t) lease);
    }
    json_object_put (answer);
    return result;
}

//  Revoke a lease
int
drover_etcd_revoke (drover_etcd_t *self, int64_t lease)
{
    assert (self);
    json_object *request = json_object_new_object ();
    json_object_object_add (request, "ID", s_number (lease));
    json_object *answer;
    int64_t code;
    int rc = s_call (self, "/v3/lease/revoke", request, &answer, &code);
    if (rc == -2 && code == S_GRPC_NOT_FOUND)
        return DROVER_ETCD_GONE;
    if (rc)
        return -1;
    json_object_put (answer);
    return 1;
}

//  A put request for key, value and lease
static json_object *
s_put_request (const char *key, const void *value, size_t size,
               int64_t lease)
{
    json_object *request = json_object_new_object ();
    json_object_object_add (request, "key", s_base64 (key, strlen (key)));
    json_object_object_add (request, "value", s_base64 (value, size));
    if (lease)
        json_object_object_add (request, "lease", s_number (lease));
    return request;
}

//  Set a key
int
drover_etcd_put (drover_etcd_t *self, const char *key, const void *value, size_t size,
                 int64_t lease)
{
    assert (self);
    assert (key);
    json_object *answer;
    int64_t code;
    if (s_call (self, "/v3/kv/put", s_put_request (key, value, size, lease), &answer, &code))
        return -1;
    json_object_put (answer);
    return 0;
}

//  Create a key if it does not exist
int
drover_etcd_create (drover_etcd_t *self, const char *key, const void *value, size_t size,
                    int64_t lease, int64_t *revision_p)
{
    assert (self);
    assert (key);
    json_object *compare = json_object_new_object ();
    json_object_object_add (compare, "key", s_base64 (key, strlen (key)));
    json_object_object_add (compare, "target", json_object_new_string ("CREATE"));
    json_object_object_add (compare, "result", json_object_new_string ("EQUAL"));
    json_object_object_add (compare, "create_revision", s_number (0));
    json_object *compares = json_object_new_array ();
    json_object_array_add (compares, compare);
    json_object *put = json_object_new_object ();
    json_object_object_add (put, "request_put", s_put_request (key, value, size, lease));
    json_object *success = json_object_new_array ();
    json_object_array_add (success, put);
    json_object *request = json_object_new_object ();
    json_object_object_add (request, "compare", compares);
    json_object_object_add (request, "success", success);

    json_object *answer;
    int64_t code;
    if (s_call (self, "/v3/kv/txn", request, &answer, &code))
        return -1;
    //  "succeeded" is left out when false
    json_object *succeeded;
    int rc = DROVER_ETCD_GONE;
    if (json_object_object_get_ex (answer, "succeeded", &succeeded)) {
        if (json_object_is_type (succeeded, json_type_boolean))
            rc = json_object_get_boolean (succeeded)? 1: DROVER_ETCD_GONE;
        else {
            snprintf (self->error, sizeof self->error, "etcd: a txn answer with a malformed"
                      " \"succeeded\"");
            rc = -1;
        }
    }
    if (revision_p)
        *revision_p = self->revision;
    json_object_put (answer);
    return rc;
}

//  Destroy a key read from etcd
void
drover_etcd_kv_destroy (drover_etcd_kv_t **self_p)
{
    assert (self_p);
    drover_etcd_kv_t *self = *self_p;
    if (!self)
        return;
    free (self->key);
    free (self->value);
    free (self);
    *self_p = NULL;
}

//  zlistx destructor for keys read from etcd
static void
s_kv_destroy (void **item_p)
{
    drover_etcd_kv_destroy ((drover_etcd_kv_t **) item_p);
}

//  Decode a base64 string field into a fresh NUL-terminated buffer; -1 if
//  it is not there (when required) or not base64
static int
s_unbase64 (json_object *object, const char *field, bool required,
            char **data_p, size_t *size_p)
{
    json_object *member;
    *data_p = NULL;
    *size_p = 0;
    if (!json_object_object_get_ex (object, field, &member)) {
        if (required)
            return -1;
        *data_p = strdup ("");          //  the gateway leaves out an empty value
        return 0;
    }
    if (!json_object_is_type (member, json_type_string))
        return -1;
    *data_p = s_unbase64_text (json_object_get_string (member), size_p);
    return *data_p? 0: -1;
}

//  One key of an answer's "kvs", checked; NULL if malformed
static drover_etcd_kv_t *
s_kv_decode (json_object *object)
{
    if (!json_object_is_type (object, json_type_object))
        return NULL;
    drover_etcd_kv_t *kv = (drover_etcd_kv_t *) zmalloc (sizeof (drover_etcd_kv_t));
    size_t key_size;
    if (s_unbase64 (object, "key", true, &kv->key, &key_size)
    ||  strlen (kv->key) != key_size
    ||  s_unbase64 (object, "value", false, &kv->value, &kv->value_size)
    ||  s_int64 (object, "create_revision", &kv->create_revision)
    ||  s_int64 (object, "mod_revision", &kv->mod_revision)
    ||  s_int64 (object, "lease", &kv->lease))
        drover_etcd_kv_destroy (&kv);
    return kv;
}

//  Decode an answer's "kvs" into a list; NULL if malformed
static zlistx_t *
s_kvs_decode (json_object *answer)
{
    zlistx_t *list = zlistx_new ();
    zlistx_set_destructor (list, s_kv_destroy);
    json_object *kvs;
    if (!json_object_object_get_ex (answer, "kvs", &kvs))
        return list;            //  none
    if (!json_object_is_type (kvs, json_type_array)) {
        zlistx_destroy (&list);
        return NULL;
    }
    size_t count = json_object_array_length (kvs);
    for (size_t index = 0; index < count; index++) {
        drover_etcd_kv_t *kv = s_kv_decode (json_object_array_get_idx (kvs, index));
        if (!kv) {
            zlistx_destroy (&list);
            return NULL;
        }
        zlistx_add_end (list, kv);
    }
    return list;
}

//  Range over [key, range_end) with options; the list or NULL
static zlistx_t *
s_range (drover_etcd_t *self, json_object *request)
{
    json_object *answer;
    int64_t code;
    if (s_call (self, "/v3/kv/range", request, &answer, &code))
        return NULL;
    zlistx_t *list = s_kvs_decode (answer);
    if (!list)
        snprintf (self->error, sizeof self->error, "etcd: a range answer with a malformed key");
    json_object_put (answer);
    return list;
}

//  Read one key
int
drover_etcd_get (drover_etcd_t *self, const char *key, drover_etcd_kv_t **kv_p)
{
    assert (self);
    assert (key);
    assert (kv_p);
    *kv_p = NULL;
    json_object *request = json_object_new_object ();
    json_object_object_add (request, "key", s_base64 (key, strlen (key)));
    zlistx_t *list = s_range (self, request);
    if (!list)
        return -1;
    drover_etcd_kv_t *kv = (drover_etcd_kv_t *) zlistx_first (list);
    if (kv && streq (kv->key, key)) {
        zlistx_detach_cur (list);
        *kv_p = kv;
    }
    zlistx_destroy (&list);
    return *kv_p? 1: 0;
}

//  Add key and range_end for every key starting with prefix to request:
//  the end is the prefix with its last byte that is not 0xff raised by one
//  (etcd's clientv3.GetPrefixRangeEnd); "\0" for all
static void
s_add_prefix_range (json_object *request, const char *prefix)
{
    size_t length = strlen (prefix);
    char *end = strdup (prefix);
    assert (end);
    while (length > 0 && (byte) end [length - 1] == 0xff)
        length--;
    if (length == 0) {
        char zero = 0;
        json_object_object_add (request, "key", s_base64 (&zero, 1));
        json_object_object_add (request, "range_end", s_base64 (&zero, 1));
    }
    else {
        end [length - 1] = (char) ((byte) end [length - 1] + 1);
        json_object_object_add (request, "key", s_base64 (prefix, strlen (prefix)));
        json_object_object_add (request, "range_end", s_base64 (end, length));
    }
    free (end);
}

//  The body of a /v3/watch request for every key starting with prefix
char *
drover_etcd_watch_body (const char *prefix)
{
    assert (prefix);
    json_object *create = json_object_new_object ();
    s_add_prefix_range (create, prefix);
    json_object *request = json_object_new_object ();
    json_object_object_add (request, "create_request", create);
    char *body = strdup (json_object_to_json_string_ext (request, JSON_C_TO_STRING_PLAIN));
    assert (body);
    json_object_put (request);
    return body;
}

//  Read every key with a prefix
zlistx_t *
drover_etcd_range (drover_etcd_t *self, const char *prefix, bool by_create, int64_t limit)
{
    assert (self);
    assert (prefix);
    json_object *request = json_object_new_object ();
    s_add_prefix_range (request, prefix);
    if (limit > 0)
        json_object_object_add (request, "limit", s_number (limit));
    if (by_create) {
        json_object_object_add (request, "sort_order", json_object_new_string ("ASCEND"));
        json_object_object_add (request, "sort_target", json_object_new_string ("CREATE"));
    }
    return s_range (self, request);
}

//  Delete a key
int
drover_etcd_delete (drover_etcd_t *self, const char *key)
{
    assert (self);
    assert (key);
    json_object *request = json_object_new_object ();
    json_object_object_add (request, "key", s_base64 (key, strlen (key)));
    json_object *answer;
    int64_t code;
    if (s_call (self, "/v3/kv/deleterange", request, &answer, &code))
        return -1;
    int64_t deleted;
    int rc = s_int64 (answer, "deleted", &deleted) == 0 && deleted >= 0? (int) deleted: -1;
    if (rc == -1)
        snprintf (self->error, sizeof self->error, "etcd: a delete answer without a valid count");
    json_object_put (answer);
    return rc;
}
