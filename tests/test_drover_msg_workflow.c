/*  =========================================================================
    test_drover_msg_workflow - the wire codec's fields of workflows
    (protocol level 3, PROTOCOL.md §7.10, §7.43, §7.44, §12): a submit's
    after list, begin, retry delays and array, a list's group, the task
    row's waits, group and parents, WORKFLOW SUBMIT and ACCEPTED; what a
    level-2 peer gets instead; what a decoder refuses; the task info's
    workflow keys; the names of the new values.
    =========================================================================
*/

#include "testcodec_msg.h"

#define S_BODY      "\x94\x91\xa4true\x90\xc0\xc0"     //  ["true"], [], nil, nil

//  A TASK SUBMIT of 1 proc running true, nothing else set, ours
static drover_msg_t *
s_submit (void)
{
    drover_msg_t *msg = drover_msg_new (DROVER_MSG_TASK_SUBMIT);
    msg->procs = 1;
    drover_msg_set_body (msg, (const byte *) S_BODY, 10);
    return msg;
}

//  Start a raw TASK SUBMIT of its 8 level-1 fields, then key, affinity,
//  service and slot left none, then nfields - 12 more to be packed
static void
s_raw_submit (testcodec_raw_t *raw, size_t nfields)
{
    testcodec_raw_begin (raw, DROVER_MSG_TASK_SUBMIT, nfields);
    msgpack_pack_uint8 (&raw->pk, 0);               //  priority
    msgpack_pack_uint8 (&raw->pk, 1);               //  procs
    msgpack_pack_uint8 (&raw->pk, 0);               //  mem
    msgpack_pack_array (&raw->pk, 0);               //  labels
    for (int index = 0; index < 3; index++)         //  timeout, retries, flags
        msgpack_pack_uint8 (&raw->pk, 0);
    msgpack_pack_bin_with_body (&raw->pk, S_BODY, 10);
    msgpack_pack_nil (&raw->pk);                    //  key
    msgpack_pack_nil (&raw->pk);                    //  affinity
    testcodec_raw_str (raw, "", 0);                 //  service
    msgpack_pack_uint8 (&raw->pk, 0);               //  slot
}

//  Pack one after entry
static void
s_raw_after (testcodec_raw_t *raw, uint64_t kind, uint64_t task)
{
    msgpack_pack_array (&raw->pk, 2);
    msgpack_pack_uint64 (&raw->pk, kind);
    msgpack_pack_uint64 (&raw->pk, task);
}

//  Pack an array record
static void
s_raw_array (testcodec_raw_t *raw, uint32_t first, uint32_t step, uint32_t count,
             uint32_t limit)
{
    msgpack_pack_array (&raw->pk, 4);
    msgpack_pack_uint32 (&raw->pk, first);
    msgpack_pack_uint32 (&raw->pk, step);
    msgpack_pack_uint32 (&raw->pk, count);
    msgpack_pack_uint32 (&raw->pk, limit);
}

//  Encode msg into a new buffer, as testcodec_encode, but for a step
//  (whose after entries may name steps): through a WORKFLOW SUBMIT's bin
static void
s_raw_step (testcodec_raw_t *raw, const char *name, const byte *data, size_t size)
{
    msgpack_pack_array (&raw->pk, 2);
    testcodec_raw_str (raw, name, strlen (name));
    msgpack_pack_bin_with_body (&raw->pk, data, size);
}

//  A submit's level-3 fields are sent only when set, after slot, in their
//  order; each goes back as it was, and the message shows level 3
static void
test_submit_fields_round_trip (void **state)
{
    drover_msg_t *msg = s_submit ();
    zframe_t *frame = drover_msg_encode (msg);
    assert_int_equal (zframe_data (frame) [0], 0x90 + 4 + 8);
    zframe_destroy (&frame);

    //  begin alone: key and affinity nil, service "", slot 0, after [] first
    msg->begin = 1795498600000;
    frame = drover_msg_encode (msg);
    assert_int_equal (zframe_data (frame) [0], 0xdc);          //  array 16 of 4 + 14
    assert_int_equal (zframe_data (frame) [2], 4 + 14);
    drover_msg_t *copy = drover_msg_new (0);
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    assert_true (copy->begin == msg->begin);
    assert_int_equal (copy->nafter, 0);
    assert_null (copy->after);
    assert_int_equal (copy->implied, 3);
    assert_int_equal (drover_msg_level (copy), 3);
    zframe_destroy (&frame);

    //  Each field alone, then all of them
    msg->begin = 0;
    msg->retry_delay = 10000;
    testcodec_assert_roundtrip (msg, copy);
    msg->retry_delay = 0;
    msg->retry_max_delay = 1;
    testcodec_assert_roundtrip (msg, copy);
    msg->retry_max_delay = 0;
    msg->array = (drover_array_spec_t) { .first = 0, .step = 1, .count = DROVER_ARRAY_MAX };
    testcodec_assert_roundtrip (msg, copy);
    msg->array = (drover_array_spec_t) { .first = UINT32_MAX, .step = 7, .count = 1,
                                         .limit = 1 };
    testcodec_assert_roundtrip (msg, copy);
    msg->array = (drover_array_spec_t) { 0 };
    msg->nafter = DROVER_AFTER_MAX;
    msg->after = (drover_after_t *) zmalloc (DROVER_AFTER_MAX * sizeof (drover_after_t));
    for (uint32_t index = 0; index < DROVER_AFTER_MAX; index++)
        msg->after [index] = (drover_after_t) { (uint8_t) (index % 3), index + 1 };
    testcodec_assert_roundtrip (msg, copy);
    assert_int_equal (copy->nafter, DROVER_AFTER_MAX);
    assert_int_equal (copy->after [1].kind, DROVER_AFTER_ANY);
    drover_msg_destroy (&msg);
    msg = testcodec_filled (DROVER_MSG_TASK_SUBMIT);
    testcodec_assert_roundtrip (msg, copy);
    assert_int_equal (copy->array.limit, 50);
    drover_msg_destroy (&msg);

    //  A list's group, with labels or without (then nil before it)
    msg = testcodec_filled (DROVER_MSG_TASK_LIST);
    testcodec_assert_roundtrip (msg, copy);
    for (uint32_t label = 0; label < msg->nlabels; label++)
        zstr_free (&msg->labels [label]);
    msg->nlabels = 0;
    frame = drover_msg_encode (msg);
    assert_int_equal (zframe_data (frame) [0], 0x90 + 4 + 4);
    assert_int_equal (zframe_data (frame) [zframe_size (frame) - 10], 0xc0);  //  nil, uint64
    assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
    assert_true (copy->group == 1ull << 40);
    assert_int_equal (copy->nlabels, 0);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);
    drover_msg_destroy (&copy);
}

//  WORKFLOW SUBMIT carries its name and steps, each a whole TASK SUBMIT
//  whose after entries may name steps; WORKFLOW ACCEPTED the ids
static void
test_workflow_round_trip (void **state)
{
    drover_msg_t *copy = drover_msg_new (0);
    drover_msg_t *msg = testcodec_filled (DROVER_MSG_WORKFLOW_SUBMIT);
    testcodec_assert_roundtrip (msg, copy);
    assert_string_equal (copy->reason, "nightly caf\xc3\xa9");
    assert_int_equal (copy->nsteps, 3);
    assert_string_equal (copy->step_names [2], "merge.all");
    assert_int_equal (copy->steps [2]->id, DROVER_MSG_TASK_SUBMIT);
    assert_int_equal (copy->steps [2]->after [0].kind, DROVER_AFTER_OK | DROVER_AFTER_STEP);
    assert_true (copy->steps [2]->after [0].task == 2);
    assert_true (copy->steps [2]->after [2].task == 5);
    assert_int_equal (copy->steps [1]->array.count, 1000);
    assert_int_equal (copy->implied, 3);
    assert_int_equal (drover_msg_level (copy), 3);
    assert_string_equal (drover_msg_name (DROVER_MSG_WORKFLOW_SUBMIT), "WORKFLOW SUBMIT");
    //  Not at level 2: the id is level 3's
    assert_null (drover_msg_encode_level (msg, 2));
    zframe_t *frame = drover_msg_encode (msg);
    assert_int_equal (drover_msg_fit (&frame, 2), -1);
    assert_int_equal (drover_msg_fit (&frame, 3), 0);
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);

    //  The most steps
    msg = drover_msg_new (DROVER_MSG_WORKFLOW_SUBMIT);
    drover_msg_set_reason (msg, "w");
    msg->nsteps = DROVER_STEPS_MAX;
    msg->step_names = (char **) zmalloc (DROVER_STEPS_MAX * sizeof (char *));
    msg->steps = (drover_msg_t **) zmalloc (DROVER_STEPS_MAX * sizeof (drover_msg_t *));
    for (uint32_t index = 0; index < DROVER_STEPS_MAX; index++) {
        msg->step_names [index] = zsys_sprintf ("s%u", index);
        msg->steps [index] = s_submit ();
        if (index) {
            msg->steps [index]->nafter = 1;
            msg->steps [index]->after = (drover_after_t *) zmalloc (sizeof (drover_after_t));
            msg->steps [index]->after [0] = (drover_after_t) {
                DROVER_AFTER_ANY | DROVER_AFTER_STEP, index };
        }
    }
    testcodec_assert_roundtrip (msg, copy);
    drover_msg_destroy (&msg);

    msg = testcodec_filled (DROVER_MSG_WORKFLOW_ACCEPTED);
    testcodec_assert_roundtrip (msg, copy);
    assert_true (copy->task == 40 && copy->ntasks == 3 && copy->tasks [1] == 43);
    assert_string_equal (drover_msg_name (DROVER_MSG_WORKFLOW_ACCEPTED), "WORKFLOW ACCEPTED");
    msg->state_id [0] = 0;
    frame = drover_msg_encode (msg);
    assert_int_equal (zframe_data (frame) [0], 0x90 + 4 + 2);  //  state id left out
    zframe_destroy (&frame);
    drover_msg_destroy (&msg);
    drover_msg_destroy (&copy);
}

//  What the encoder will not send: a step's index outside a workflow, a
//  kind past the last, task 0, a bad array, steps without names or with
//  the same name twice, a step that is no submit, a name too long
static void
test_not_encoded (void **state)
{
    drover_msg_t *msg = s_submit ();
    msg->nafter = 1;
    msg->after = (drover_after_t *) zmalloc (sizeof (drover_after_t));
    msg->after [0] = (drover_after_t) { DROVER_AFTER_OK | DROVER_AFTER_STEP, 1 };
    testcodec_assert_not_encoded (msg, "a step's index outside a workflow");
    msg->after [0] = (drover_after_t) { DROVER_AFTER_KIND_MAX + 1, 1 };
    testcodec_assert_not_encoded (msg, "an after kind past the last");
    msg->after [0] = (drover_after_t) { DROVER_AFTER_OK, 0 };
    testcodec_assert_not_encoded (msg, "after task 0");
    msg->after [0].task = 1;
    msg->array = (drover_array_spec_t) { .step = 0, .count = 2 };
    testcodec_assert_not_encoded (msg, "array step 0");
    msg->array = (drover_array_spec_t) { .first = 2, .step = 1, .count = UINT32_MAX };
    testcodec_assert_not_encoded (msg, "array past its count limit");
    msg->array = (drover_array_spec_t) { .first = UINT32_MAX - 8, .step = 3, .count = 4 };
    testcodec_assert_not_encoded (msg, "array whose last index is past a uint32");
    msg->array.count = 3;                               //  the last index, UINT32_MAX - 2
    drover_msg_t *copy = testcodec_roundtrip (msg);
    assert_int_equal (copy->array.count, 3);
    drover_msg_destroy (&copy);
    drover_msg_destroy (&msg);

    msg = testcodec_filled (DROVER_MSG_WORKFLOW_SUBMIT);
    free (msg->step_names [2]);
    msg->step_names [2] = strdup ("fetch");
    testcodec_assert_not_encoded (msg, "two steps of the same name");
    free (msg->step_names [2]);
    msg->step_names [2] = strdup ("a b");
    testcodec_assert_not_encoded (msg, "a step name that is no id");
    free (msg->step_names [2]);
    msg->step_names [2] = strdup ("merge");
    msg->steps [1]->id = DROVER_MSG_WORKFLOW_SUBMIT;
    testcodec_assert_not_encoded (msg, "a step that is a workflow");
    msg->steps [1]->id = DROVER_MSG_TASK_SUBMIT;
    drover_msg_set_reason (msg, "");
    testcodec_assert_not_encoded (msg, "a workflow without a name");
    char name [DROVER_ID_MAX + 2];
    memset (name, 'n', sizeof name - 1);
    name [DROVER_ID_MAX + 1] = 0;
    drover_msg_set_reason (msg, name);
    testcodec_assert_not_encoded (msg, "a name past 64 bytes");
    drover_msg_destroy (&msg);
}

//  What a decoder refuses in a submit's level-3 fields and a list's group,
//  each with a text that says what is wrong
static void
test_submit_refusals (void **state)
{
    struct {
        uint64_t kind, task;
        const char *error;
    } afters [] = {
        { DROVER_AFTER_KIND_MAX + 1, 1, "after kind: not after, after-any or after-fail" },
        { 0x0f, 1, "after kind: not after" },
        { 256, 1, "after kind: out of range" },
        { DROVER_AFTER_OK, 0, "after task: task ids start at 1" },
        { DROVER_AFTER_OK | DROVER_AFTER_STEP, 1, "after step: names a step outside a workflow" },
    };
    testcodec_raw_t raw;
    for (size_t index = 0; index < sizeof afters / sizeof afters [0]; index++) {
        s_raw_submit (&raw, 13);
        msgpack_pack_array (&raw.pk, 1);
        s_raw_after (&raw, afters [index].kind, afters [index].task);
        testcodec_assert_raw_refused (&raw, afters [index].error, 64);
    }
    //  More entries than the limit; an entry of one element; not an array
    s_raw_submit (&raw, 13);
    msgpack_pack_array (&raw.pk, DROVER_AFTER_MAX + 1);
    for (uint32_t index = 0; index <= DROVER_AFTER_MAX; index++)
        s_raw_after (&raw, DROVER_AFTER_OK, index + 1);
    testcodec_assert_raw_refused (&raw, "after: out of range", 64);
    s_raw_submit (&raw, 13);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    testcodec_raw_str (&raw, "abc", 3);
    testcodec_assert_raw_refused (&raw, "after entry: out of range", 64);
    s_raw_submit (&raw, 13);
    msgpack_pack_uint8 (&raw.pk, 7);
    testcodec_assert_raw_refused (&raw, "after: wrong type", 64);
    //  An entry with an element past the two known (a later level's) is read
    s_raw_submit (&raw, 13);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 3);
    msgpack_pack_uint8 (&raw.pk, DROVER_AFTER_FAIL);
    msgpack_pack_uint8 (&raw.pk, 9);
    testcodec_raw_str (&raw, "later", 5);
    drover_msg_t *msg = testcodec_raw_accepted (&raw);
    assert_int_equal (msg->nafter, 1);
    assert_int_equal (msg->after [0].kind, DROVER_AFTER_FAIL);
    drover_msg_destroy (&msg);

    //  begin and the retry delays: their types and ranges
    s_raw_submit (&raw, 14);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_int8 (&raw.pk, -1);
    testcodec_assert_raw_refused (&raw, "begin: out of range", 64);
    s_raw_submit (&raw, 15);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_uint64 (&raw.pk, 1ull << 32);
    testcodec_assert_raw_refused (&raw, "retry_delay: out of range", 64);
    s_raw_submit (&raw, 16);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 0);
    testcodec_raw_str (&raw, "1", 1);
    testcodec_assert_raw_refused (&raw, "retry_max_delay: wrong type", 64);

    //  Arrays
    struct {
        uint32_t first, step, count, limit;
        const char *error;
    } arrays [] = {
        { 1, 0, 0, 0, "array: count 0 (none) with other elements set" },
        { 0, 0, 0, 5, "array: count 0 (none)" },
        { 0, 1, DROVER_ARRAY_MAX + 1, 0, "array count: more than 10000000 elements" },
        { 0, 0, 2, 0, "array step: must be 1 or more" },
        { UINT32_MAX, 1, 2, 0, "array: its last index is past 4294967295" },
        { 1, 1u << 31, 3, 0, "array: its last index is past" },
    };
    for (size_t index = 0; index < sizeof arrays / sizeof arrays [0]; index++) {
        s_raw_submit (&raw, 17);
        msgpack_pack_array (&raw.pk, 0);
        for (int field = 0; field < 3; field++)
            msgpack_pack_uint8 (&raw.pk, 0);
        s_raw_array (&raw, arrays [index].first, arrays [index].step, arrays [index].count,
                     arrays [index].limit);
        testcodec_assert_raw_refused (&raw, arrays [index].error, 64);
    }
    s_raw_submit (&raw, 17);
    msgpack_pack_array (&raw.pk, 0);
    for (int field = 0; field < 3; field++)
        msgpack_pack_uint8 (&raw.pk, 0);
    msgpack_pack_array (&raw.pk, 3);
    for (int field = 0; field < 3; field++)
        msgpack_pack_uint8 (&raw.pk, 1);
    testcodec_assert_raw_refused (&raw, "array: out of range", 64);
    //  All zero is no array; one past the 17 fields is refused
    s_raw_submit (&raw, 17);
    msgpack_pack_array (&raw.pk, 0);
    for (int field = 0; field < 3; field++)
        msgpack_pack_uint8 (&raw.pk, 0);
    s_raw_array (&raw, 0, 0, 0, 0);
    msg = testcodec_raw_accepted (&raw);
    assert_int_equal (msg->array.count, 0);
    drover_msg_destroy (&msg);

    //  TASK LIST: nil labels before a group; an empty filter is still refused
    testcodec_raw_begin (&raw, DROVER_MSG_TASK_LIST, 4);
    msgpack_pack_uint8 (&raw.pk, 10);
    msgpack_pack_uint8 (&raw.pk, 255);
    msgpack_pack_nil (&raw.pk);
    msgpack_pack_uint8 (&raw.pk, 40);
    msg = testcodec_raw_accepted (&raw);
    assert_true (msg->group == 40);
    assert_int_equal (msg->nlabels, 0);
    assert_int_equal (drover_msg_level (msg), 3);
    drover_msg_destroy (&msg);
    testcodec_raw_begin (&raw, DROVER_MSG_TASK_LIST, 4);
    msgpack_pack_uint8 (&raw.pk, 10);
    msgpack_pack_uint8 (&raw.pk, 255);
    msgpack_pack_array (&raw.pk, 0);
    msgpack_pack_uint8 (&raw.pk, 40);
    testcodec_assert_raw_refused (&raw, "labels: out of range", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_TASK_LIST, 4);
    msgpack_pack_uint8 (&raw.pk, 10);
    msgpack_pack_uint8 (&raw.pk, 255);
    msgpack_pack_nil (&raw.pk);
    msgpack_pack_int8 (&raw.pk, -4);
    testcodec_assert_raw_refused (&raw, "group: out of range", 64);
}

//  The bytes of a submit as a step (after entries may name steps), ours
static byte *
s_step_bytes (drover_msg_t *step, size_t *size_p)
{
    drover_msg_t *workflow = drover_msg_new (DROVER_MSG_WORKFLOW_SUBMIT);
    drover_msg_set_reason (workflow, "w");
    workflow->nsteps = 1;
    workflow->step_names = (char **) zmalloc (sizeof (char *));
    workflow->step_names [0] = strdup ("a");
    workflow->steps = (drover_msg_t **) zmalloc (sizeof (drover_msg_t *));
    workflow->steps [0] = step;
    size_t size;
    byte *whole = testcodec_encode (workflow, &size);
    workflow->steps [0] = NULL;             //  the caller's
    drover_msg_destroy (&workflow);
    //  The step's bin: [..., name, [[step name, bin]]]
    msgpack_unpacked unpacked;
    msgpack_unpacked_init (&unpacked);
    assert_int_equal (msgpack_unpack_next (&unpacked, (const char *) whole, size, NULL),
                      MSGPACK_UNPACK_SUCCESS);
    const msgpack_object *steps = &unpacked.data.via.array.ptr [5];
    const msgpack_object *bin = &steps->via.array.ptr [0].via.array.ptr [1];
    assert_true (bin->type == MSGPACK_OBJECT_BIN);
    size_t step_size = bin->via.bin.size;
    byte *bytes = (byte *) malloc (step_size);
    memcpy (bytes, bin->via.bin.ptr, step_size);
    msgpack_unpacked_destroy (&unpacked);
    free (whole);
    *size_p = step_size;
    return bytes;
}

//  What a decoder refuses in a WORKFLOW SUBMIT and ACCEPTED
static void
test_workflow_refusals (void **state)
{
    drover_msg_t *step = s_submit ();
    size_t plain_size;
    byte *plain = s_step_bytes (step, &plain_size);
    step->nafter = 1;
    step->after = (drover_after_t *) zmalloc (sizeof (drover_after_t));
    step->after [0] = (drover_after_t) { DROVER_AFTER_OK | DROVER_AFTER_STEP, 1 };
    size_t named_size;
    byte *named = s_step_bytes (step, &named_size);
    drover_msg_destroy (&step);
    //  A submit naming a step is one only inside a workflow
    testcodec_assert_refused (named, named_size, "after step: names a step outside a workflow");

    testcodec_raw_t raw;
    //  Two steps, the second after the first: read
    testcodec_raw_begin (&raw, DROVER_MSG_WORKFLOW_SUBMIT, 2);
    testcodec_raw_str (&raw, "daily", 5);
    msgpack_pack_array (&raw.pk, 2);
    s_raw_step (&raw, "one", plain, plain_size);
    s_raw_step (&raw, "two", named, named_size);
    drover_msg_t *msg = testcodec_raw_accepted (&raw);
    assert_int_equal (msg->nsteps, 2);
    assert_int_equal (msg->steps [1]->after [0].kind, DROVER_AFTER_OK | DROVER_AFTER_STEP);
    drover_msg_destroy (&msg);

    //  The name: none, too long, not a str
    testcodec_raw_begin (&raw, DROVER_MSG_WORKFLOW_SUBMIT, 2);
    testcodec_raw_str (&raw, "", 0);
    msgpack_pack_array (&raw.pk, 1);
    s_raw_step (&raw, "one", plain, plain_size);
    testcodec_assert_raw_refused (&raw, "name: out of range", 64);
    char long_name [DROVER_ID_MAX + 1];
    memset (long_name, 'x', sizeof long_name);
    testcodec_raw_begin (&raw, DROVER_MSG_WORKFLOW_SUBMIT, 2);
    testcodec_raw_str (&raw, long_name, sizeof long_name);
    msgpack_pack_array (&raw.pk, 1);
    s_raw_step (&raw, "one", plain, plain_size);
    testcodec_assert_raw_refused (&raw, "name: out of range", 64);
    //  No steps; a step name that is no id, or repeated; a step record too short
    testcodec_raw_begin (&raw, DROVER_MSG_WORKFLOW_SUBMIT, 2);
    testcodec_raw_str (&raw, "w", 1);
    msgpack_pack_array (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "steps: out of range", 64);
    const char *names [][2] = { { "one", "t wo" }, { "one", "one" }, { "", "two" } };
    const char *errors [] = { "step name: not a valid id", "step name: used by two steps",
                              "step name: out of range" };
    for (size_t index = 0; index < 3; index++) {
        testcodec_raw_begin (&raw, DROVER_MSG_WORKFLOW_SUBMIT, 2);
        testcodec_raw_str (&raw, "w", 1);
        msgpack_pack_array (&raw.pk, 2);
        s_raw_step (&raw, names [index][0], plain, plain_size);
        s_raw_step (&raw, names [index][1], named, named_size);
        testcodec_assert_raw_refused (&raw, errors [index], 4096);
    }
    testcodec_raw_begin (&raw, DROVER_MSG_WORKFLOW_SUBMIT, 2);
    testcodec_raw_str (&raw, "w", 1);
    msgpack_pack_array (&raw.pk, 1);
    msgpack_pack_array (&raw.pk, 1);
    testcodec_raw_str (&raw, "a-name-long-enough-for-a-step", 29);
    testcodec_assert_raw_refused (&raw, "step: out of range", 64);

    //  A step that is no TASK SUBMIT: an OK, a workflow (no nesting deeper),
    //  bytes that are no message; a step whose own fields are wrong
    drover_msg_t *ok = drover_msg_new (DROVER_MSG_OK);
    ok->code = 200;
    size_t ok_size;
    byte *ok_bytes = testcodec_encode (ok, &ok_size);
    drover_msg_destroy (&ok);
    drover_msg_t *inner = testcodec_filled (DROVER_MSG_WORKFLOW_SUBMIT);
    size_t inner_size;
    byte *inner_bytes = testcodec_encode (inner, &inner_size);
    drover_msg_destroy (&inner);
    testcodec_raw_t bad;
    s_raw_submit (&bad, 13);
    msgpack_pack_array (&bad.pk, 1);
    s_raw_after (&bad, DROVER_AFTER_OK | DROVER_AFTER_STEP, DROVER_STEPS_MAX + 1);
    struct {
        const byte *data;
        size_t size;
        const char *error;
    } steps [] = {
        { ok_bytes, ok_size, "step submit: not a TASK SUBMIT" },
        { inner_bytes, inner_size, "step submit: not a TASK SUBMIT" },
        { (const byte *) "\x93\xa3" "DRV", 5, "truncated" },
        { RAW_DATA (bad), RAW_SIZE (bad), "after step: out of range" },
    };
    for (size_t index = 0; index < sizeof steps / sizeof steps [0]; index++) {
        testcodec_raw_begin (&raw, DROVER_MSG_WORKFLOW_SUBMIT, 2);
        testcodec_raw_str (&raw, "w", 1);
        msgpack_pack_array (&raw.pk, 1);
        s_raw_step (&raw, "step-with-a-long-name", steps [index].data, steps [index].size);
        testcodec_assert_raw_refused (&raw, steps [index].error, 4096);
    }
    testcodec_raw_destroy (&bad);
    free (ok_bytes);
    free (inner_bytes);
    free (plain);
    free (named);

    //  WORKFLOW ACCEPTED: a step id 0, no ids
    testcodec_raw_begin (&raw, DROVER_MSG_WORKFLOW_ACCEPTED, 2);
    msgpack_pack_uint8 (&raw.pk, 40);
    msgpack_pack_array (&raw.pk, 2);
    msgpack_pack_uint8 (&raw.pk, 41);
    msgpack_pack_uint8 (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "tasks: task ids start at 1", 64);
    testcodec_raw_begin (&raw, DROVER_MSG_WORKFLOW_ACCEPTED, 2);
    msgpack_pack_uint8 (&raw.pk, 40);
    msgpack_pack_array (&raw.pk, 0);
    testcodec_assert_raw_refused (&raw, "tasks: out of range", 64);
}

//  A peer of level 2 gets what it knows: a submit without the level-3
//  fields, rows of 10 elements, DEPENDENCY as CANCELLED (TASK DONE, rows,
//  TASK INFO), an explanation without the items of codes 60 on, a list
//  without its group; at level 3 the same messages go whole
static void
test_level_two_is_fitted (void **state)
{
    int ids [] = { DROVER_MSG_TASK_SUBMIT, DROVER_MSG_TASK_LIST, DROVER_MSG_TASK_TABLE,
                   DROVER_MSG_TASK_DONE, DROVER_MSG_TASK_EXPLANATION, DROVER_MSG_TASK_INFO };
    drover_msg_t *copy = drover_msg_new (0);
    for (size_t index = 0; index < sizeof ids / sizeof ids [0]; index++) {
        drover_msg_t *msg = testcodec_filled (ids [index]);
        if (ids [index] == DROVER_MSG_TASK_DONE) {
            msg->state = DROVER_TASK_CANCELLED;
            msg->end = DROVER_END_DEPENDENCY;
            drover_msg_set_reason (msg, "dependency: task 12 FAILED");
        }
        if (ids [index] == DROVER_MSG_TASK_TABLE) {
            msg->task_rows [1].state = DROVER_TASK_CANCELLED;
            msg->task_rows [1].end = DROVER_END_DEPENDENCY;
            msg->task_rows [1].group = 7;
        }
        if (ids [index] == DROVER_MSG_TASK_EXPLANATION) {
            msg->whys [1] = (drover_why_t) { .code = DROVER_WHY_PARENT, .count = 2, .a = 12,
                                             .b = DROVER_TASK_RUNNING };
            msg->whys [2] = (drover_why_t) { .code = DROVER_WHY_BEGIN, .a = 1795498600000 };
        }
        if (ids [index] == DROVER_MSG_TASK_INFO) {
            msg->info->state = DROVER_TASK_CANCELLED;
            msg->info->end = DROVER_END_DEPENDENCY;
        }
        //  Level 3: as it is
        drover_msg_t *whole = testcodec_roundtrip (msg);
        testcodec_assert_same (msg, whole);
        drover_msg_destroy (&whole);
        //  Level 2: encoded for it, or fitted to it, the same bytes
        zframe_t *frame = drover_msg_encode_level (msg, 2);
        assert_non_null (frame);
        zframe_t *fitted = drover_msg_encode (msg);
        assert_int_equal (drover_msg_fit (&fitted, 2), 0);
        assert_true (zframe_eq (frame, fitted));
        zframe_destroy (&fitted);
        assert_int_equal (drover_msg_decode (copy, zframe_data (frame), zframe_size (frame)), 0);
        assert_true (copy->implied <= 2);
        testcodec_as_level_two (msg);
        testcodec_assert_same (msg, copy);
        if (ids [index] == DROVER_MSG_TASK_SUBMIT)
            assert_int_equal (zframe_data (frame) [2], 4 + 12);   //  array 16
        if (ids [index] == DROVER_MSG_TASK_LIST)
            assert_int_equal (zframe_data (frame) [0], 0x90 + 4 + 3);
        if (ids [index] == DROVER_MSG_TASK_DONE)
            assert_int_equal (copy->end, DROVER_END_CANCELLED);
        if (ids [index] == DROVER_MSG_TASK_TABLE) {
            assert_int_equal (copy->task_rows [1].end, DROVER_END_CANCELLED);
            assert_int_equal (copy->task_rows [2].waits, 0);
        }
        if (ids [index] == DROVER_MSG_TASK_EXPLANATION) {
            assert_int_equal (copy->nwhys, 1);
            assert_int_equal (copy->whys [0].code, DROVER_WHY_AHEAD);
        }
        if (ids [index] == DROVER_MSG_TASK_INFO) {
            assert_int_equal (copy->info->end, DROVER_END_CANCELLED);
            assert_int_equal (copy->info->waits, DROVER_WAITS_RETRY);   //  a key: skipped by
        }                                                               //  a level-2 reader
        zframe_destroy (&frame);
        drover_msg_destroy (&msg);
    }
    //  A row with level-3 elements: 13 at level 3, 10 at level 2 (with its
    //  reason), 7 at level 1
    drover_msg_t *msg = testcodec_filled (DROVER_MSG_TASK_TABLE);
    const int sizes [] = { 7, 10, 13 };
    for (int level = 1; level <= 3; level++) {
        zframe_t *frame = drover_msg_encode_level (msg, level);
        msgpack_unpacked unpacked;
        msgpack_unpacked_init (&unpacked);
        assert_int_equal (msgpack_unpack_next (&unpacked, (const char *) zframe_data (frame),
                                               zframe_size (frame), NULL),
                          MSGPACK_UNPACK_SUCCESS);
        const msgpack_object *rows = &unpacked.data.via.array.ptr [5];
        assert_int_equal (rows->via.array.ptr [2].via.array.size, sizes [level - 1]);
        //  A row with none of them set keeps level 2's size
        assert_int_equal (rows->via.array.ptr [0].via.array.size, level == 1? 7: 9);
        msgpack_unpacked_destroy (&unpacked);
        zframe_destroy (&frame);
    }
    drover_msg_destroy (&msg);
    drover_msg_destroy (&copy);
}

//  The task info's keys of workflows: sent only when not zero, read back,
//  bounded; an info without them is the info of level 2
static void
test_taskinfo_workflow_keys (void **state)
{
    drover_taskinfo_t *info = drover_taskinfo_new ();
    info->task = 5;
    size_t plain_size;
    byte *plain = drover_taskinfo_encode (info, &plain_size);
    assert_int_equal (plain [0], 0xde);                 //  map 16
    assert_int_equal (plain [2], 32);                   //  the 32 keys of level 2
    info->group = 4;
    info->member_counts [DROVER_TASK_RUNNING] = 3;
    info->nparents = 1;
    info->parents = (drover_parent_t *) zmalloc (sizeof (drover_parent_t));
    info->parents [0] = (drover_parent_t) { DROVER_AFTER_ANY, 3, 200 };  //  a later state
    size_t size;
    byte *data = drover_taskinfo_encode (info, &size);
    assert_int_equal (data [2], 35);
    const char *error = NULL;
    drover_taskinfo_t *copy = drover_taskinfo_decode (data, size, &error);
    assert_non_null (copy);
    assert_true (copy->group == 4);
    assert_true (copy->member_counts [DROVER_TASK_RUNNING] == 3);
    assert_int_equal (copy->nparents, 1);
    assert_int_equal (copy->parents [0].kind, DROVER_AFTER_ANY);
    assert_true (copy->parents [0].task == 3);
    assert_int_equal (copy->parents [0].state, 200);
    assert_int_equal (copy->nchildren, 0);
    assert_null (copy->children);
    drover_taskinfo_destroy (&copy);
    free (data);
    free (plain);

    //  Past the limits: not encoded
    info->nchildren = DROVER_CHILDREN_LISTED + 1;
    info->children = (uint64_t *) zmalloc (info->nchildren * sizeof (uint64_t));
    assert_null (drover_taskinfo_encode (info, &size));
    info->nchildren = DROVER_CHILDREN_LISTED;
    data = drover_taskinfo_encode (info, &size);
    assert_non_null (data);
    free (data);
    drover_taskinfo_destroy (&info);

    //  Hand-made: member_counts not of 7, children past 64, a parent of 2
    testcodec_raw_t raw;
    const char *errors [] = { "member_counts: out of range", "task info list: out of range",
                              "task info parent: out of range" };
    for (int fault = 0; fault < 3; fault++) {
        testcodec_raw_init (&raw);
        msgpack_pack_map (&raw.pk, 2);
        testcodec_raw_str (&raw, "task", 4);
        msgpack_pack_uint8 (&raw.pk, 1);
        if (fault == 0) {
            testcodec_raw_str (&raw, "member_counts", 13);
            msgpack_pack_array (&raw.pk, 6);
            for (int state = 0; state < 6; state++)
                msgpack_pack_uint8 (&raw.pk, 1);
        }
        else
        if (fault == 1) {
            testcodec_raw_str (&raw, "children", 8);
            msgpack_pack_array (&raw.pk, DROVER_CHILDREN_LISTED + 1);
            for (int child = 0; child <= DROVER_CHILDREN_LISTED; child++)
                msgpack_pack_uint8 (&raw.pk, 1);
        }
        else {
            testcodec_raw_str (&raw, "parents", 7);
            msgpack_pack_array (&raw.pk, 1);
            msgpack_pack_array (&raw.pk, 2);
            msgpack_pack_uint8 (&raw.pk, 0);
            msgpack_pack_uint64 (&raw.pk, 1ull << 40);
        }
        error = NULL;
        assert_null (drover_taskinfo_decode (RAW_DATA (raw), RAW_SIZE (raw), &error));
        assert_non_null (error);
        if (!strstr (error, errors [fault]))
            fail_msg ("error \"%s\" does not mention \"%s\"", error, errors [fault]);
        testcodec_raw_destroy (&raw);
    }
}

//  The names of the new values, and "?" or "INVALID" past them
static void
test_names (void **state)
{
    assert_string_equal (drover_end_name (DROVER_END_DEPENDENCY), "DEPENDENCY");
    assert_string_equal (drover_end_name (DROVER_END_MAX + 1), "INVALID");
    assert_true (drover_end_fits (DROVER_TASK_CANCELLED, DROVER_END_DEPENDENCY));
    assert_false (drover_end_fits (DROVER_TASK_FAILED, DROVER_END_DEPENDENCY));
    assert_string_equal (drover_after_kind_name (DROVER_AFTER_OK), "after");
    assert_string_equal (drover_after_kind_name (DROVER_AFTER_ANY), "after-any");
    assert_string_equal (drover_after_kind_name (DROVER_AFTER_FAIL | DROVER_AFTER_STEP),
                         "after-fail");
    assert_string_equal (drover_after_kind_name (DROVER_AFTER_KIND_MAX + 1), "?");
    assert_string_equal (drover_after_kind_name (-1), "?");
    const char *waits [] = { "", "after", "begin", "retry", "array", "group" };
    for (int index = 0; index <= DROVER_WAITS_MAX; index++)
        assert_string_equal (drover_waits_name (index), waits [index]);
    assert_string_equal (drover_waits_name (DROVER_WAITS_MAX + 1), "?");
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_submit_fields_round_trip),
        cmocka_unit_test (test_workflow_round_trip),
        cmocka_unit_test (test_not_encoded),
        cmocka_unit_test (test_submit_refusals),
        cmocka_unit_test (test_workflow_refusals),
        cmocka_unit_test (test_level_two_is_fitted),
        cmocka_unit_test (test_taskinfo_workflow_keys),
        cmocka_unit_test (test_names),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
