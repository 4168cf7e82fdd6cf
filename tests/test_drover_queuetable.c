/*  =========================================================================
    test_drover_queuetable - the named queues' table: put and replace by
    name, name order, lookup, copies, what the wire cannot carry kept out,
    the QUEUE TABLE it makes and reads back, and a queue's endpoints with
    the owner's first
    =========================================================================
*/

#include "testutil.h"
#include "drover_queuetable.h"

#define A   "tcp://10.0.0.1:6001"
#define B   "tcp://10.0.0.2:6001"
#define C   "tcp://10.0.0.3:6001"

//  Queues come out in name order, a name once; a put replaces every field
static void
test_put_order_replace (void **state)
{
    drover_queuetable_t *table = drover_queuetable_new ("spread");
    assert_string_equal (drover_queuetable_strategy (table), "spread");
    assert_int_equal (drover_queuetable_size (table), 0);
    assert_null (drover_queuetable_item (table, 0));
    drover_queuetable_put (table, "gpu", "b2", B, 7, A "," B);
    drover_queuetable_put (table, "batch", "b1", A, 5, A "," B);
    drover_queuetable_put (table, "cpu.small-1", NULL, NULL, 0, NULL);
    assert_int_equal (drover_queuetable_size (table), 3);
    assert_string_equal (drover_queuetable_item (table, 0)->name, "batch");
    assert_string_equal (drover_queuetable_item (table, 1)->name, "cpu.small-1");
    assert_string_equal (drover_queuetable_item (table, 2)->name, "gpu");
    assert_null (drover_queuetable_item (table, 3));
    const drover_queueentry_t *entry = drover_queuetable_item (table, 1);
    assert_string_equal (entry->owner, "");
    assert_string_equal (entry->owner_endpoint, "");
    assert_string_equal (entry->endpoints, "");
    assert_true (entry->token == 0);

    drover_queuetable_put (table, "batch", "b2", B, 9, B);
    assert_int_equal (drover_queuetable_size (table), 3);
    entry = drover_queuetable_lookup (table, "batch");
    assert_non_null (entry);
    assert_string_equal (entry->owner, "b2");
    assert_string_equal (entry->owner_endpoint, B);
    assert_true (entry->token == 9);
    assert_string_equal (entry->endpoints, B);
    assert_null (drover_queuetable_lookup (table, "nope"));
    assert_null (drover_queuetable_lookup (table, NULL));
    assert_null (drover_queuetable_lookup (table, "bat"));
    //  A put of an entry's own texts (as a copy would) keeps them whole
    entry = drover_queuetable_lookup (table, "gpu");
    drover_queuetable_put (table, entry->name, entry->owner, entry->owner_endpoint, 8,
                           entry->endpoints);
    entry = drover_queuetable_lookup (table, "gpu");
    assert_string_equal (entry->owner, "b2");
    assert_string_equal (entry->endpoints, A "," B);
    assert_true (entry->token == 8);
    drover_queuetable_destroy (&table);
    drover_queuetable_destroy (&table);     //  harmless twice
    assert_null (table);

    table = drover_queuetable_new (NULL);
    assert_string_equal (drover_queuetable_strategy (table), "");
    drover_queuetable_destroy (&table);
}

//  Many queues, put in reverse order, still come out sorted and found
static void
test_many_sorted (void **state)
{
    drover_queuetable_t *table = drover_queuetable_new ("leader");
    for (int index = 199; index >= 0; index--) {
        char name [16];
        snprintf (name, sizeof name, "q%03d", index);
        drover_queuetable_put (table, name, "b1", A, (uint64_t) index, A);
    }
    assert_int_equal (drover_queuetable_size (table), 200);
    for (size_t index = 0; index < 200; index++) {
        char name [16];
        snprintf (name, sizeof name, "q%03zu", index);
        assert_string_equal (drover_queuetable_item (table, index)->name, name);
        assert_true (drover_queuetable_lookup (table, name)->token == index);
    }
    drover_queuetable_destroy (&table);
}

//  What the wire cannot carry is not put: the table stays as it was
static void
test_refuses_what_the_wire_cannot_carry (void **state)
{
    drover_queuetable_t *table = drover_queuetable_new ("spread");
    char long_name [DROVER_QUEUE_NAME_MAX + 2];
    memset (long_name, 'q', sizeof long_name - 1);
    long_name [sizeof long_name - 1] = 0;
    char long_endpoint [DROVER_ENDPOINT_MAX + 2];
    memset (long_endpoint, 'e', sizeof long_endpoint - 1);
    long_endpoint [sizeof long_endpoint - 1] = 0;
    drover_queuetable_put (table, NULL, "b1", A, 1, A);
    drover_queuetable_put (table, "", "b1", A, 1, A);
    drover_queuetable_put (table, "has space", "b1", A, 1, A);
    drover_queuetable_put (table, "slash/no", "b1", A, 1, A);
    drover_queuetable_put (table, long_name, "b1", A, 1, A);
    drover_queuetable_put (table, "q", "has space", A, 1, A);
    drover_queuetable_put (table, "q", "b1", long_endpoint, 1, A);
    drover_queuetable_put (table, "q", "b1", "tcp://a:1,tcp://b:1", 1, A);
    drover_queuetable_put (table, "q", "b1", A, 1, A ",," B);
    drover_queuetable_put (table, "q", "b1", A, 1, A ",");
    drover_queuetable_put (table, "q", "b1", A, 1, A " ," B);
    assert_int_equal (drover_queuetable_size (table), 0);
    //  At the limits: a 64-byte name, a 256-byte endpoint, 64 endpoints
    long_name [DROVER_QUEUE_NAME_MAX] = 0;
    long_endpoint [DROVER_ENDPOINT_MAX] = 0;
    char *list = strdup (long_endpoint);
    for (int index = 1; index < DROVER_QUEUE_ENDPOINTS_MAX; index++) {
        char *longer = zsys_sprintf ("%s,tcp://h%d:1", list, index);
        zstr_free (&list);
        list = longer;
    }
    drover_queuetable_put (table, long_name, "b1", long_endpoint, 1, list);
    assert_int_equal (drover_queuetable_size (table), 1);
    char *more = zsys_sprintf ("%s,tcp://one-more:1", list);
    drover_queuetable_put (table, "other", "b1", A, 1, more);
    assert_int_equal (drover_queuetable_size (table), 1);
    zstr_free (&more);
    zstr_free (&list);
    //  At most DROVER_QUEUES_MAX queues
    for (int index = 1; index <= DROVER_QUEUES_MAX; index++) {
        char name [16];
        snprintf (name, sizeof name, "n%05d", index);
        drover_queuetable_put (table, name, "", "", 0, "");
    }
    assert_int_equal (drover_queuetable_size (table), DROVER_QUEUES_MAX);
    drover_queuetable_put (table, long_name, "b2", B, 2, B);   //  a replace still goes in
    assert_string_equal (drover_queuetable_lookup (table, long_name)->owner, "b2");
    drover_queuetable_destroy (&table);
    //  A strategy too long for the wire is none
    table = drover_queuetable_new ("a-strategy-of-17b");
    assert_string_equal (drover_queuetable_strategy (table), "");
    drover_queuetable_destroy (&table);
}

//  A copy is the same and lives apart from its original
static void
test_dup (void **state)
{
    drover_queuetable_t *table = drover_queuetable_new ("spread");
    drover_queuetable_put (table, "b", "b1", A, 3, A "," B);
    drover_queuetable_put (table, "a", "b2", B, 4, B);
    drover_queuetable_t *copy = drover_queuetable_dup (table);
    drover_queuetable_put (table, "c", "b1", A, 5, A);
    drover_queuetable_destroy (&table);
    assert_string_equal (drover_queuetable_strategy (copy), "spread");
    assert_int_equal (drover_queuetable_size (copy), 2);
    assert_string_equal (drover_queuetable_item (copy, 0)->name, "a");
    assert_string_equal (drover_queuetable_item (copy, 1)->endpoints, A "," B);
    assert_true (drover_queuetable_item (copy, 1)->token == 3);
    drover_queuetable_destroy (&copy);
}

//  The QUEUE TABLE it makes goes on the wire, and reads back the same
static void
test_encode_decode (void **state)
{
    drover_queuetable_t *table = drover_queuetable_new ("spread");
    drover_queuetable_put (table, "gpu", "b2", B, UINT64_MAX, A "," B "," C);
    drover_queuetable_put (table, "batch", "", "", 0, A);
    drover_msg_t *msg = drover_queuetable_encode (table);
    assert_int_equal (msg->id, DROVER_MSG_QUEUE_TABLE);
    assert_int_equal (msg->nqueues, 2);
    zframe_t *frame = drover_msg_encode (msg);
    assert_non_null (frame);
    drover_msg_t *copy = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    zframe_destroy (&frame);
    drover_queuetable_t *back = drover_queuetable_decode (copy);
    assert_string_equal (drover_queuetable_strategy (back), "spread");
    assert_int_equal (drover_queuetable_size (back), 2);
    const drover_queueentry_t *entry = drover_queuetable_lookup (back, "gpu");
    assert_string_equal (entry->owner, "b2");
    assert_string_equal (entry->owner_endpoint, B);
    assert_true (entry->token == UINT64_MAX);
    assert_string_equal (entry->endpoints, A "," B "," C);
    entry = drover_queuetable_lookup (back, "batch");
    assert_string_equal (entry->owner, "");
    assert_string_equal (entry->endpoints, A);
    drover_queuetable_destroy (&back);
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);
    drover_queuetable_destroy (&table);
    //  An empty table: strategy "" and no rows, as a lone broker answers
    table = drover_queuetable_new ("");
    msg = drover_queuetable_encode (table);
    assert_int_equal (msg->nqueues, 0);
    assert_null (msg->queue_rows);
    assert_string_equal (msg->strategy, "");
    frame = drover_msg_encode (msg);
    assert_non_null (frame);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);
    drover_queuetable_destroy (&table);
}

//  Where a peer of a queue talks: the owner's endpoint first, then the
//  others in their order; "" when none offers it; NULL for no such queue
static void
test_endpoints_for (void **state)
{
    drover_queuetable_t *table = drover_queuetable_new ("spread");
    drover_queuetable_put (table, "a", "b2", B, 3, A "," B "," C);
    drover_queuetable_put (table, "b", "b1", A, 3, A "," B);
    drover_queuetable_put (table, "c", "", "", 0, A "," C);
    drover_queuetable_put (table, "d", "b9", "tcp://gone:1", 3, A);
    drover_queuetable_put (table, "e", "", "", 0, "");
    char *list = drover_queuetable_endpoints_for (table, "a");
    assert_string_equal (list, B "," A "," C);
    zstr_free (&list);
    list = drover_queuetable_endpoints_for (table, "b");
    assert_string_equal (list, A "," B);
    zstr_free (&list);
    list = drover_queuetable_endpoints_for (table, "c");
    assert_string_equal (list, A "," C);
    zstr_free (&list);
    list = drover_queuetable_endpoints_for (table, "d");      //  the owner, though not listed
    assert_string_equal (list, "tcp://gone:1," A);
    zstr_free (&list);
    list = drover_queuetable_endpoints_for (table, "e");
    assert_string_equal (list, "");
    zstr_free (&list);
    assert_null (drover_queuetable_endpoints_for (table, "f"));
    drover_queuetable_destroy (&table);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_put_order_replace),
        cmocka_unit_test (test_many_sorted),
        cmocka_unit_test (test_refuses_what_the_wire_cannot_carry),
        cmocka_unit_test (test_dup),
        cmocka_unit_test (test_encode_decode),
        cmocka_unit_test (test_endpoints_for),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
