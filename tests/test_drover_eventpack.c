/*  =========================================================================
    test_drover_eventpack - runs of packed events: a round trip of every
    field at its limits, replay from within a run, and damaged bytes
    (truncated, trailing, overlong, past a limit) refused
    =========================================================================
*/

#include "testutil.h"
#include "drover_eventpack.h"

#define S_EVENTS    5               //  events in the test run

//  What unpack hands over, kept in order
typedef struct {
    drover_event_t events [S_EVENTS];   //  copies
    size_t count;                   //  in events
    size_t stop_after;              //  fn says stop after this many (0: never)
} s_seen_t;

static int
s_take (void *arg, const drover_event_t *event)
{
    s_seen_t *seen = (s_seen_t *) arg;
    assert_true (seen->count < S_EVENTS);
    seen->events [seen->count++] = *event;
    return seen->stop_after && seen->count >= seen->stop_after? -1: 0;
}

//  A run with every field at its limits, seqs with gaps, time going back
static void
s_make_run (drover_change_t **changes)
{
    uint64_t seqs [S_EVENTS] = { 1ull << 40, (1ull << 40) + 1, (1ull << 40) + 1000,
                                 (1ull << 40) + 1001, (1ull << 40) + 5000 };
    uint64_t times [S_EVENTS] = { 1700000000123ull, 1700000000100ull, 0, UINT64_MAX,
                                  1700000000200ull };
    for (int index = 0; index < S_EVENTS; index++) {
        drover_change_t *change = drover_change_new (index == 0? "worker.up": "task.running",
                                                     index == 0? 0: (uint64_t) index << 50);
        change->seq = seqs [index];
        change->time = times [index];
        change->attempt = index == 3? UINT32_MAX: (uint32_t) index;
        changes [index] = change;
    }
    memset (changes [1]->topic, 't', sizeof changes [1]->topic - 1);
    memset (changes [2]->worker, 'w', DROVER_ID_MAX);
    memset (changes [3]->reason, 'r', DROVER_REASON_MAX);
    snprintf (changes [4]->worker, sizeof changes [4]->worker, "w-1");
    snprintf (changes [4]->reason, sizeof changes [4]->reason, "exit 3");
}

//  Every field comes back as it went in, from any point of the run
static void
test_round_trip (void **state)
{
    drover_change_t *changes [S_EVENTS];
    s_make_run (changes);
    byte *data = (byte *) malloc (S_EVENTS * DROVER_EVENTPACK_MAX);
    size_t size = drover_eventpack_pack (data, changes, S_EVENTS);
    assert_true (size > DROVER_ID_MAX + DROVER_REASON_MAX);
    assert_true (size <= S_EVENTS * DROVER_EVENTPACK_MAX);
    s_seen_t seen = { .count = 0 };
    int64_t handed = 0;
    assert_int_equal (drover_eventpack_unpack (data, size, changes [0]->seq, S_EVENTS, 0, 100,
                                               s_take, &seen, &handed), 0);
    assert_int_equal (handed, S_EVENTS);
    for (int index = 0; index < S_EVENTS; index++) {
        drover_event_t expected;
        drover_change_event (changes [index], &expected);
        drover_event_t *event = &seen.events [index];
        assert_int_equal (event->seq, expected.seq);
        assert_int_equal (event->time, expected.time);
        assert_int_equal (event->task, expected.task);
        assert_int_equal (event->attempt, expected.attempt);
        assert_string_equal (event->topic, expected.topic);
        assert_string_equal (event->worker, expected.worker);
        assert_string_equal (event->reason, expected.reason);
    }
    //  From within the run, at most max, or until fn stops
    seen.count = 0;
    handed = 0;
    assert_int_equal (drover_eventpack_unpack (data, size, changes [0]->seq, S_EVENTS,
                                               changes [1]->seq, 2, s_take, &seen, &handed), 1);
    assert_int_equal (handed, 2);
    assert_int_equal (seen.events [0].seq, changes [2]->seq);
    assert_int_equal (seen.events [1].seq, changes [3]->seq);
    seen.count = 0;
    seen.stop_after = 1;
    handed = 0;
    assert_int_equal (drover_eventpack_unpack (data, size, changes [0]->seq, S_EVENTS, 0, 100,
                                               s_take, &seen, &handed), 1);
    assert_int_equal (seen.count, 1);
    //  Nothing after since: nothing handed, the run still checked whole
    seen.count = 0;
    seen.stop_after = 0;
    handed = 0;
    assert_int_equal (drover_eventpack_unpack (data, size, changes [0]->seq, S_EVENTS,
                                               UINT64_MAX, 100, s_take, &seen, &handed), 0);
    assert_int_equal (handed, 0);
    free (data);
    for (int index = 0; index < S_EVENTS; index++)
        drover_change_destroy (&changes [index]);
}

//  Unpack bytes that should be refused: -1, and nothing read past them
static void
s_assert_refused (const byte *data, size_t size, int64_t count)
{
    //  A copy exactly size long, so ASan sees any read past it
    byte *copy = size? (byte *) malloc (size): NULL;
    if (size)
        memcpy (copy, data, size);
    s_seen_t seen = { .count = 0 };
    int64_t handed = 0;
    assert_int_equal (drover_eventpack_unpack (copy, size, 1, count, 0, 100, s_take, &seen,
                                               &handed), -1);
    free (copy);
}

//  Truncated, trailing, miscounted, overlong or past a limit: refused
static void
test_damaged_refused (void **state)
{
    drover_change_t *changes [S_EVENTS];
    s_make_run (changes);
    byte *data = (byte *) malloc (S_EVENTS * DROVER_EVENTPACK_MAX + 1);
    size_t size = drover_eventpack_pack (data, changes, S_EVENTS);
    for (size_t cut = 0; cut < size; cut++)
        s_assert_refused (data, cut, S_EVENTS);
    data [size] = 0;
    s_assert_refused (data, size + 1, S_EVENTS);        //  a trailing byte
    s_assert_refused (data, size, S_EVENTS + 1);        //  fewer than said
    s_assert_refused (data, size, S_EVENTS - 1);        //  more than said
    s_assert_refused (NULL, 0, 1);
    //  A varint of 11 bytes
    byte overlong [16];
    memset (overlong, 0x80, sizeof overlong);
    s_assert_refused (overlong, sizeof overlong, 1);
    //  A topic longer than a topic may be: 0, 0, 0, 0, then length 32
    byte long_topic [64] = { 0, 0, 0, 0, 32 };
    s_assert_refused (long_topic, sizeof long_topic, 1);
    //  An attempt past 32 bits
    byte big_attempt [16] = { 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0 };
    s_assert_refused (big_attempt, 11, 1);
    free (data);
    for (int index = 0; index < S_EVENTS; index++)
        drover_change_destroy (&changes [index]);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_round_trip),
        cmocka_unit_test (test_damaged_refused),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
