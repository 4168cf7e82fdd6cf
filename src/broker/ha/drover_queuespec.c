/*  =========================================================================
    drover_queuespec - the named queues a broker offers (see the header)
    =========================================================================
*/

#include "drover_queuespec.h"
#include <ctype.h>

typedef struct {
    char name [DROVER_QUEUESPEC_NAME_MAX + 1];  //  the queue's name
    int port;                   //  its ROUTER's port; its events' is port + 1
} s_queue_t;

struct _drover_queuespec_t {
    s_queue_t queues [DROVER_QUEUESPEC_MAX];    //  in the order given
    size_t size;                //  queues used
};

//  True if name is 1-64 letters, digits, '.', '_' or '-'
static bool
s_name_valid (const char *name, size_t length)
{
    if (length == 0 || length > DROVER_QUEUESPEC_NAME_MAX)
        return false;
    for (size_t index = 0; index < length; index++)
        if (!isalnum ((unsigned char) name [index]) && !strchr ("._-", name [index]))
            return false;
    return true;
}

//  Parse one "Q=PORT" of length bytes into self; 0, or -1 and *error_p
static int
s_parse_one (drover_queuespec_t *self, const char *item, size_t length, char **error_p)
{
    const char *equals = memchr (item, '=', length);
    size_t name_length = equals? (size_t) (equals - item): length;
    if (!equals || !s_name_valid (item, name_length)) {
        *error_p = zsys_sprintf ("ha/queues: '%.*s' is not Q=PORT, Q 1 to %d letters, digits, "
                                 "'.', '_' or '-'", (int) length, item, DROVER_QUEUESPEC_NAME_MAX);
        return -1;
    }
    char digits [8] = "";
    size_t digits_length = length - name_length - 1;
    long port = 0;
    if (digits_length > 0 && digits_length < sizeof digits) {
        memcpy (digits, equals + 1, digits_length);
        char *end;
        port = strtol (digits, &end, 10);
        if (*end || !isdigit ((unsigned char) digits [0]))
            port = 0;
    }
    if (port < 1 || port > 65534) {
        *error_p = zsys_sprintf ("ha/queues: the port of '%.*s' must be 1..65534 (its events "
                                 "take the next)", (int) length, item);
        return -1;
    }
    for (size_t index = 0; index < self->size; index++) {
        s_queue_t *other = &self->queues [index];
        if (strlen (other->name) == name_length && memcmp (other->name, item, name_length) == 0) {
            *error_p = zsys_sprintf ("ha/queues: queue '%s' is given twice", other->name);
            return -1;
        }
        if (labs (other->port - port) <= 1) {
            *error_p = zsys_sprintf ("ha/queues: '%.*s' shares a port with '%s' (each takes PORT "
                                     "and PORT+1)", (int) length, item, other->name);
            return -1;
        }
    }
    if (self->size == DROVER_QUEUESPEC_MAX) {
        *error_p = zsys_sprintf ("ha/queues: more than %d queues", DROVER_QUEUESPEC_MAX);
        return -1;
    }
    s_queue_t *queue = &self->queues [self->size++];
    memcpy (queue->name, item, name_length);
    queue->name [name_length] = 0;
    queue->port = (int) port;
    return 0;
}

//  Parse text
drover_queuespec_t *
drover_queuespec_new (const char *text, char **error_p)
{
    assert (error_p);
    drover_queuespec_t *self = (drover_queuespec_t *) zmalloc (sizeof (drover_queuespec_t));
    const char *item = text? text: "";
    while (*item) {
        size_t length = strcspn (item, ",");
        if (s_parse_one (self, item, length, error_p)) {
            drover_queuespec_destroy (&self);
            return NULL;
        }
        item += length;
        if (*item == ',')
            item++;
    }
    return self;
}

//  Destroy
void
drover_queuespec_destroy (drover_queuespec_t **self_p)
{
    assert (self_p);
    free (*self_p);
    *self_p = NULL;
}

//  Queues offered
size_t
drover_queuespec_size (drover_queuespec_t *self)
{
    return self->size;
}

//  Queue index's name
const char *
drover_queuespec_name (drover_queuespec_t *self, size_t index)
{
    assert (index < self->size);
    return self->queues [index].name;
}

//  Queue index's port
int
drover_queuespec_port (drover_queuespec_t *self, size_t index)
{
    assert (index < self->size);
    return self->queues [index].port;
}

//  The port an endpoint ends with, or -1 ("*" or none)
static long
s_endpoint_port (const char *endpoint)
{
    const char *colon = strrchr (endpoint, ':');
    if (!colon || !isdigit ((unsigned char) colon [1]))
        return -1;
    char *end;
    long port = strtol (colon + 1, &end, 10);
    return *end? -1: port;
}

//  True if a queue's port or events port is endpoint's
bool
drover_queuespec_uses (drover_queuespec_t *self, const char *endpoint)
{
    long port = s_endpoint_port (endpoint);
    for (size_t index = 0; index < self->size; index++)
        if (port == self->queues [index].port || port == self->queues [index].port + 1)
            return true;
    return false;
}

//  Endpoint with its port replaced
char *
drover_queuespec_endpoint (const char *endpoint, int port)
{
    const char *colon = strrchr (endpoint, ':');
    if (!colon || colon [1] == '/' || colon [1] == 0)
        return NULL;            //  "tcp://" alone, or no port
    return zsys_sprintf ("%.*s:%d", (int) (colon - endpoint), endpoint, port);
}

//  What this broker offers, one line a queue
char *
drover_queuespec_offer (drover_queuespec_t *self, const char *advertise)
{
    char *offer = strdup ("");
    assert (offer);
    for (size_t index = 0; index < self->size; index++) {
        char *endpoint = drover_queuespec_endpoint (advertise, self->queues [index].port);
        assert (endpoint);      //  advertise was checked to end with a port
        char *longer = zsys_sprintf ("%s%s%s %s", offer, index? "\n": "",
                                     self->queues [index].name, endpoint);
        zstr_free (&endpoint);
        zstr_free (&offer);
        offer = longer;
    }
    return offer;
}

//  The schema of queue index, quoted (names hold no '"')
char *
drover_queuespec_schema (drover_queuespec_t *self, size_t index)
{
    return zsys_sprintf ("\"drover_q_%s\"", drover_queuespec_name (self, index));
}

//  The state of queue index: state with search_path its schema
char *
drover_queuespec_state (drover_queuespec_t *self, size_t index, const char *state)
{
    //  In a URI's options: -csearch_path="drover_q_Q", '=' and '"' escaped
    return zsys_sprintf ("%s%soptions=-csearch_path%%3D%%22drover_q_%s%%22", state,
                         strchr (state, '?')? "&": "?", drover_queuespec_name (self, index));
}
