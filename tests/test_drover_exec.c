/*  =========================================================================
    test_drover_exec - the exec body codec: a body round-trips with its
    argv, env, cwd and stdin, at its limits too; and what a hostile client
    can send as a body (cut, wrong types, bad env entries, deep nesting,
    trailing bytes, counts past the bytes, random bytes) is refused with
    -2 and a reason by decode and validate alike, without a crash, a leak
    or an allocation past the body's own size (run under ASan+UBSan). A
    body's env takes entries added or replaced (drover_exec_body_with_env).
    =========================================================================
*/

#include "testcodec.h"

static void
test_exec_roundtrip (void **state)
{
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "sh", "-c", "echo \"$GREETING\" && cat", "" };
    assert_int_equal (drover_exec_set_argv (exec, 4, argv), 0);
    assert_int_equal (drover_exec_set_argv (exec, 0, argv), -1);
    assert_int_equal (drover_exec_add_env (exec, "GREETING=hello world"), 0);
    assert_int_equal (drover_exec_add_env (exec, "EMPTY="), 0);
    assert_int_equal (drover_exec_add_env (exec, "=nope"), -1);
    assert_int_equal (drover_exec_add_env (exec, "NOPE"), -1);
    drover_exec_set_cwd (exec, "/tmp");
    drover_exec_set_input (exec, (const byte *) "in\0put", 6);
    size_t size;
    byte *body = drover_exec_encode (exec, &size);
    assert_non_null (body);
    const char *error = "untouched";
    assert_int_equal (drover_exec_validate (body, size, &error), 0);
    assert_null (error);

    drover_exec_t *copy = drover_exec_new ();
    drover_exec_set_cwd (copy, "/old");         //  emptied by decode
    assert_int_equal (drover_exec_decode (copy, body, size, &error), 0);
    assert_int_equal (copy->argc, 4);
    for (int index = 0; index < 4; index++)
        assert_string_equal (copy->argv [index], argv [index]);
    assert_null (copy->argv [4]);
    assert_int_equal (copy->nenv, 2);
    assert_string_equal (copy->env [0], "GREETING=hello world");
    assert_string_equal (copy->env [1], "EMPTY=");
    assert_null (copy->env [2]);
    assert_string_equal (copy->cwd, "/tmp");
    assert_int_equal (copy->input_size, 6);
    assert_memory_equal (copy->input, "in\0put", 6);
    //  A decoded body can grow: add_env after decode
    for (int index = 0; index < 20; index++)
        assert_int_equal (drover_exec_add_env (copy, "MORE=1"), 0);
    assert_int_equal (copy->nenv, 22);
    assert_null (copy->env [22]);
    free (body);

    //  Without cwd and input both travel as nil
    drover_exec_set_cwd (exec, NULL);
    drover_exec_set_input (exec, NULL, 0);
    body = drover_exec_encode (exec, &size);
    assert_non_null (body);
    assert_int_equal (body [size - 1], 0xc0);
    assert_int_equal (body [size - 2], 0xc0);
    assert_int_equal (drover_exec_decode (copy, body, size, &error), 0);
    assert_null (copy->cwd);
    assert_null (copy->input);
    assert_int_equal (copy->input_size, 0);
    free (body);

    //  Limits
    for (int index = 2; index < DROVER_ENV_MAX; index++)
        assert_int_equal (drover_exec_add_env (exec, "X=1"), 0);
    assert_int_equal (drover_exec_add_env (exec, "X=1"), -1);
    const char **many = (const char **) zmalloc ((DROVER_ARGV_MAX + 1) * sizeof (char *));
    for (int index = 0; index <= DROVER_ARGV_MAX; index++)
        many [index] = "a";
    assert_int_equal (drover_exec_set_argv (exec, DROVER_ARGV_MAX + 1, many), -1);
    assert_int_equal (drover_exec_set_argv (exec, DROVER_ARGV_MAX, many), 0);
    free (many);
    body = drover_exec_encode (exec, &size);
    assert_non_null (body);
    assert_int_equal (drover_exec_decode (copy, body, size, &error), 0);
    assert_int_equal (copy->argc, DROVER_ARGV_MAX);
    assert_int_equal (copy->nenv, DROVER_ENV_MAX);
    free (body);
    byte *input = (byte *) zmalloc (DROVER_INPUT_MAX + 1);
    drover_exec_set_input (exec, input, DROVER_INPUT_MAX + 1);
    assert_null (drover_exec_encode (exec, &size));
    drover_exec_set_input (exec, input, DROVER_INPUT_MAX);
    body = drover_exec_encode (exec, &size);
    assert_non_null (body);
    assert_int_equal (drover_exec_validate (body, size, &error), 0);
    free (body);
    free (input);
    drover_exec_destroy (&exec);
    drover_exec_destroy (&copy);
    drover_exec_destroy (&copy);                //  harmless twice
}

//  Hand-made exec bodies the decoder must refuse
static void
test_exec_rejects (void **state)
{
    struct { const char *bytes; size_t size; const char *error; } cases [] = {
        { "", 0, "empty" },
        { "\x93\x91\xa1x\x90\xc0", 6, "exec body: out of range" },          //  3 elements
        { "\x94\x90\x90\xc0\xc0", 5, "argv: out of range" },                //  no argv
        { "\x94\x91\x01\x90\xc0\xc0", 6, "argv: wrong type" },
        { "\x94\x91\xa3x\0y\x90\xc0\xc0", 9, "argv: contains NUL" },
        { "\x94\x91\xa1x\x91\xa3NOP\xc0\xc0", 11, "env: not NAME=value" },
        { "\x94\x91\xa1x\x91\xa2=x\xc0\xc0", 10, "env: not NAME=value" },
        { "\x94\x91\xa1x\x90\xa0\xc0", 7, "cwd: out of range" },            //  "" cwd
        { "\x94\x91\xa1x\x90\x01\xc0", 7, "cwd: wrong type" },
        { "\x94\x91\xa1x\x90\xc0\xa1x", 8, "input: wrong type" },
        { "\x94\x91\xa1x\x90\xc0\xc0\xc0", 8, "trailing" },
        { "\x94\x91\x91\xa1x\x90\xc0\xc0", 8, "nesting" },                  //  depth 3
        { "\x94\xdd\xff\xff\xff\xff", 6, "truncated" },
    };
    for (size_t index = 0; index < sizeof cases / sizeof cases [0]; index++) {
        const char *error = NULL;
        drover_exec_t *exec = drover_exec_new ();
        int rc = drover_exec_decode (exec, (const byte *) cases [index].bytes, cases [index].size, &error);
        if (rc != -2 || !error || !strstr (error, cases [index].error))
            fail_msg ("exec case %zu: rc=%d error=%s, want %s", index, rc, error, cases [index].error);
        assert_null (exec->argv);
        assert_int_equal (exec->argc, 0);
        error = NULL;
        assert_int_equal (drover_exec_validate ((const byte *) cases [index].bytes,
                                                cases [index].size, &error), -2);
        assert_non_null (error);
        drover_exec_destroy (&exec);
    }
}

//  An env array once could claim more entries than its bytes hold: it is
//  refused unless the bytes left can hold each entry at its smallest ("A=",
//  3 bytes), before the array is allocated (moved from the wire codec's
//  test_rows_claimed_past_bytes_are_refused_unallocated, now in
//  test_drover_msg_hostile)
static void
test_env_claimed_past_bytes_is_refused_unallocated (void **state)
{
    testcodec_raw_t raw;
    //  Exec body: 256 nils where env entries (at least "A=") should be
    testcodec_raw_init (&raw);
    msgpack_pack_array (&raw.pk, 4);
    msgpack_pack_array (&raw.pk, 1);
    testcodec_raw_str (&raw, "true", 4);
    msgpack_pack_array (&raw.pk, DROVER_ENV_MAX);
    for (int index = 0; index < DROVER_ENV_MAX; index++)
        msgpack_pack_nil (&raw.pk);
    msgpack_pack_nil (&raw.pk);
    msgpack_pack_nil (&raw.pk);
    drover_exec_t *exec = drover_exec_new ();
    const char *error = NULL;
    testcodec_alloc_largest = 0;
    assert_int_equal (drover_exec_decode (exec, RAW_DATA (raw), RAW_SIZE (raw), &error), -2);
    if (testcodec_alloc_largest > RAW_SIZE (raw))
        fail_msg ("exec body of %zu bytes allocated %zu bytes at once",
                  RAW_SIZE (raw), testcodec_alloc_largest);
    drover_exec_destroy (&exec);
    testcodec_raw_destroy (&raw);
}

//  Every prefix of a valid body is refused
static void
test_exec_truncated_at_every_length (void **state)
{
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "echo", "hi" };
    drover_exec_set_argv (exec, 2, argv);
    drover_exec_add_env (exec, "A=b");
    drover_exec_set_cwd (exec, "/");
    drover_exec_set_input (exec, (const byte *) "x", 1);
    size_t size;
    byte *body = drover_exec_encode (exec, &size);
    for (size_t length = 0; length < size; length++) {
        const char *error = NULL;
        assert_int_equal (drover_exec_decode (exec, body, length, &error), -2);
        assert_non_null (error);
    }
    free (body);
    drover_exec_destroy (&exec);
}

//  Random bytes (the same buffers test_drover_msg_hostile decodes): accepted, or
//  refused with a reason
static void
test_exec_random_bytes (void **state)
{
    drover_exec_t *exec = drover_exec_new ();
    testcodec_seed (42);
    for (int count = 0; count < 100000; count++) {
        size_t size;
        byte *data = testcodec_random_bytes (count, &size);
        const char *error = NULL;
        int rc = drover_exec_decode (exec, data, size, &error);
        assert_true (rc == 0 || (rc == -2 && error));
        free (data);
    }
    drover_exec_destroy (&exec);
}

//  Encode an exec of argv "true", the env entries (NULL-ended), cwd and
//  input set; *size_p its size
static byte *
s_body (const char *const env [], size_t *size_p)
{
    drover_exec_t *exec = drover_exec_new ();
    const char *argv [] = { "true", "x y" };
    assert_int_equal (drover_exec_set_argv (exec, 2, argv), 0);
    for (size_t index = 0; env && env [index]; index++)
        assert_int_equal (drover_exec_add_env (exec, env [index]), 0);
    drover_exec_set_cwd (exec, "/work");
    drover_exec_set_input (exec, (const byte *) "in", 2);
    byte *body = drover_exec_encode (exec, size_p);
    assert_non_null (body);
    drover_exec_destroy (&exec);
    return body;
}

//  Assert body decodes to argv "true", cwd, input of s_body and exactly
//  the env entries (NULL-ended)
static void
s_assert_env (const byte *body, size_t size, const char *const env [])
{
    drover_exec_t *exec = drover_exec_new ();
    const char *error = NULL;
    assert_int_equal (drover_exec_decode (exec, body, size, &error), 0);
    assert_int_equal (exec->argc, 2);
    assert_string_equal (exec->argv [1], "x y");
    assert_string_equal (exec->cwd, "/work");
    assert_int_equal (exec->input_size, 2);
    assert_memory_equal (exec->input, "in", 2);
    uint32_t count = 0;
    while (env [count])
        count++;
    assert_int_equal (exec->nenv, count);
    for (uint32_t index = 0; index < count; index++)
        assert_string_equal (exec->env [index], env [index]);
    assert_null (exec->env [count]);
    drover_exec_destroy (&exec);
}

//  Entries put into a body's env replace one of the same NAME (in place,
//  later ones of it dropped) or are added, the rest of the body as it was:
//  how the broker gives an array element its DROVER_ARRAY_ID and INDEX.
//  Once: no such function
static void
test_body_with_env (void **state)
{
    const char *env [] = { "DROVER_ARRAY_INDEX=forged", "KEEP=1", "DROVER_ARRAY_INDEX=again",
                           "DROVER_ARRAY_IDX=other", NULL };
    size_t size;
    byte *body = s_body (env, &size);
    const char *array [] = { "DROVER_ARRAY_ID=40", "DROVER_ARRAY_INDEX=7" };
    size_t new_size = 0;
    byte *with = drover_exec_body_with_env (body, size, array, 2, &new_size);
    assert_non_null (with);
    const char *expected [] = { "DROVER_ARRAY_INDEX=7", "KEEP=1", "DROVER_ARRAY_IDX=other",
                                "DROVER_ARRAY_ID=40", NULL };
    s_assert_env (with, new_size, expected);
    free (with);

    //  A body without env; no entries at all gives the same body back
    free (body);
    body = s_body (NULL, &size);
    with = drover_exec_body_with_env (body, size, array, 2, &new_size);
    const char *added [] = { "DROVER_ARRAY_ID=40", "DROVER_ARRAY_INDEX=7", NULL };
    s_assert_env (with, new_size, added);
    free (with);
    with = drover_exec_body_with_env (body, size, NULL, 0, &new_size);
    assert_non_null (with);
    assert_int_equal (new_size, size);
    assert_memory_equal (with, body, size);
    free (with);
    //  Two entries of one NAME: the later wins; "NAME=" is a value too
    const char *twice [] = { "A=1", "A=2", "B=" };
    with = drover_exec_body_with_env (body, size, twice, 3, &new_size);
    const char *last [] = { "A=2", "B=", NULL };
    s_assert_env (with, new_size, last);
    free (with);

    //  Refused: a bad body, a bad entry, past the limits
    const char *bad [] = { "NOPE", "=x" };
    new_size = 0;
    assert_null (drover_exec_body_with_env (body, size - 1, array, 2, &new_size));
    assert_null (drover_exec_body_with_env (NULL, 0, array, 2, &new_size));
    assert_null (drover_exec_body_with_env (body, size, bad, 1, &new_size));
    assert_null (drover_exec_body_with_env (body, size, bad + 1, 1, &new_size));
    assert_null (drover_exec_body_with_env (body, size, NULL, 1, &new_size));
    const char *null_entry [] = { "A=1", NULL };
    assert_null (drover_exec_body_with_env (body, size, null_entry, 2, &new_size));
    char *huge = (char *) zmalloc (DROVER_STRING_MAX + 2);
    memset (huge, 'v', DROVER_STRING_MAX + 1);
    huge [0] = 'H';
    huge [1] = '=';
    const char *too_long [] = { huge };
    assert_null (drover_exec_body_with_env (body, size, too_long, 1, &new_size));
    huge [DROVER_STRING_MAX] = 0;               //  exactly the longest
    with = drover_exec_body_with_env (body, size, too_long, 1, &new_size);
    assert_non_null (with);
    free (with);
    free (huge);
    //  A body full of env takes a replacement, not one entry more
    const char **full = (const char **) zmalloc ((DROVER_ENV_MAX + 1) * sizeof (char *));
    char (*names) [16] = zmalloc (DROVER_ENV_MAX * 16);
    for (int index = 0; index < DROVER_ENV_MAX; index++) {
        snprintf (names [index], 16, "V%d=%d", index, index);
        full [index] = names [index];
    }
    free (body);
    body = s_body (full, &size);
    const char *replace [] = { "V7=seven" };
    with = drover_exec_body_with_env (body, size, replace, 1, &new_size);
    assert_non_null (with);
    full [7] = "V7=seven";
    s_assert_env (with, new_size, full);
    free (with);
    assert_null (drover_exec_body_with_env (body, size, array, 1, &new_size));
    free (names);
    free (full);
    free (body);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_exec_roundtrip),
        cmocka_unit_test (test_exec_rejects),
        cmocka_unit_test (test_env_claimed_past_bytes_is_refused_unallocated),
        cmocka_unit_test (test_exec_truncated_at_every_length),
        cmocka_unit_test (test_exec_random_bytes),
        cmocka_unit_test (test_body_with_env),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
