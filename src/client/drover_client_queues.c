/*  =========================================================================
    drover_client_queues - the named queues of several brokers: asking any
    broker of the list where they are served (QUEUES), and where a peer of
    one queue talks (PROTOCOL.md §7.39, §17)

    Every broker answers QUEUES itself, a standby too, so the request is
    answered by the first broker of the list that is alive; the client's
    usual moving between brokers takes care of dead ones.
    =========================================================================
*/

#include "drover_client_internal.h"
#include "drover_queuetable.h"

//  Ask the brokers for their queue table
drover_msg_t *
drover_client_queues (drover_client_t *self)
{
    assert (self);
    drover_msg_t *request = drover_msg_new (DROVER_MSG_QUEUES);
    drover_msg_t *reply = drover_client_request_expect (self, request, DROVER_MSG_QUEUE_TABLE);
    drover_msg_destroy (&request);
    return reply;
}

//  Say which queues there are, for an error about one that is not: "a, b"
//  or "none", at most a line of them
static char *
s_queue_names (drover_queuetable_t *table)
{
    size_t size = drover_queuetable_size (table);
    if (size == 0)
        return strdup ("none");
    char *names = strdup ("");
    for (size_t index = 0; index < size && strlen (names) < 200; index++) {
        char *longer = zsys_sprintf ("%s%s%s", names, index? ", ": "",
                                     drover_queuetable_item (table, index)->name);
        zstr_free (&names);
        names = longer;
    }
    if (strlen (names) >= 200) {
        char *longer = zsys_sprintf ("%s, ...", names);
        zstr_free (&names);
        names = longer;
    }
    return names;
}

//  Return where a peer of queue talks, owner first
char *
drover_client_queue_endpoints (drover_client_t *self, const char *queue)
{
    assert (self);
    if (!drover_queue_name_valid (queue)) {
        drover_client_set_error (self, DROVER_CLIENT_ERR_INVALID, "'%.64s' is not a queue name "
                                 "(1..64 of A-Z a-z 0-9 . _ -)", queue? queue: "");
        return NULL;
    }
    drover_msg_t *reply = drover_client_queues (self);
    if (!reply) {
        if (drover_client_error_code (self) == DROVER_CODE_UNEXPECTED)
            drover_client_set_error (self, DROVER_CODE_UNEXPECTED, "the broker knows no "
                                     "named queues (it predates QUEUES): no queue '%s'", queue);
        return NULL;
    }
    drover_queuetable_t *table = drover_queuetable_decode (reply);
    drover_msg_destroy (&reply);
    char *list = drover_queuetable_endpoints_for (table, queue);
    if (!list) {
        char *names = s_queue_names (table);
        drover_client_set_error (self, DROVER_CODE_NOT_FOUND, "no queue '%s' (the brokers "
                                 "offer: %s)", queue, names);
        zstr_free (&names);
    }
    else
    if (!*list) {
        zstr_free (&list);
        drover_client_set_error (self, DROVER_CODE_UNAVAILABLE, "no broker offers queue '%s' "
                                 "now", queue);
    }
    drover_queuetable_destroy (&table);
    return list;
}
