/*  =========================================================================
    test_drover_devices - a worker's counted devices: --device values
    parsed or refused with a clear reason, GPUs found in a faked /dev,
    devices taken and given back per task, never one to two tasks, and
    what a task is told of its own
    =========================================================================
*/

#include "drover_devices.h"
#include "testutil.h"
#include <sys/stat.h>

//  Parse specs (NULL-terminated) into a fresh inventory, failing on a refusal
static drover_devices_t *
s_inventory (const char *spec, ...)
{
    drover_devices_t *devices = drover_devices_new ();
    va_list args;
    va_start (args, spec);
    for (const char *item = spec; item; item = va_arg (args, const char *)) {
        char *error = NULL;
        if (drover_devices_parse (devices, item, &error))
            fail_msg ("'%s' refused: %s", item, error);
    }
    va_end (args);
    return devices;
}

//  Parse spec, expecting a refusal whose reason contains needle
static void
s_expect_refused (const char *spec, const char *needle)
{
    drover_devices_t *devices = s_inventory ("fpga=1", NULL);
    char *error = NULL;
    if (drover_devices_parse (devices, spec, &error) == 0)
        fail_msg ("'%s' was taken", spec);
    assert_non_null (error);
    if (!strstr (error, needle))
        fail_msg ("'%s': '%s' does not say '%s'", spec, error, needle);
    assert_non_null (strstr (error, spec));      //  the value is named
    zstr_free (&error);
    assert_int_equal (drover_devices_size (devices), 1);
    drover_devices_destroy (&devices);
}

//  Expect the inventory's description
static void
s_expect_described (drover_devices_t *devices, const char *described)
{
    char *text = drover_devices_describe (devices);
    assert_string_equal (text, described);
    zstr_free (&text);
}

//  Counts and lists parse to their indices, described as ranges
static void
test_parses_counts_and_lists (void **state)
{
    (void) state;
    drover_devices_t *devices = s_inventory ("gpu=4", "fpga=0,2,5-9,11", "nic_x=3,",
                                             "tpu=1,2", NULL);
    assert_int_equal (drover_devices_size (devices), 4);
    assert_string_equal (drover_devices_name (devices, 0), "gpu");
    assert_string_equal (drover_devices_name (devices, 3), "tpu");
    assert_null (drover_devices_name (devices, 4));
    assert_int_equal (drover_devices_total (devices, "gpu"), 4);
    assert_int_equal (drover_devices_total (devices, "fpga"), 8);
    assert_int_equal (drover_devices_total (devices, "nic_x"), 1);
    assert_int_equal (drover_devices_total (devices, "none"), 0);
    assert_string_equal (drover_devices_source (devices, "gpu"), "given");
    s_expect_described (devices, "gpu=0-3 (given) fpga=0,2,5-9,11 (given) nic_x=3 (given) "
                                  "tpu=1,2 (given)");
    drover_devices_destroy (&devices);
    drover_devices_destroy (&devices);  //  harmless twice

    //  gpu=0: none, and nothing is detected in its place
    devices = s_inventory ("gpu=0", NULL);
    assert_int_equal (drover_devices_size (devices), 0);
    s_expect_described (devices, "none");
    assert_int_equal (drover_devices_detect (devices), 0);
    assert_int_equal (drover_devices_size (devices), 0);
    drover_devices_destroy (&devices);

    //  The largest count and index
    devices = s_inventory ("a=1024", "b=4095,", NULL);
    assert_int_equal (drover_devices_total (devices, "a"), 1024);
    s_expect_described (devices, "a=0-1023 (given) b=4095 (given)");
    drover_devices_destroy (&devices);
}

//  Bad values are refused, each saying what is wrong
static void
test_refuses_bad_values (void **state)
{
    (void) state;
    s_expect_refused ("gpu", "must be NAME=COUNT or NAME=I,J");
    s_expect_refused ("gpu=", "must be NAME=COUNT");
    s_expect_refused ("=2", "must be NAME=COUNT");
    s_expect_refused ("GPU=2", "NAME of 1..32 of a-z 0-9 _");
    s_expect_refused ("g-pu=2", "must be NAME=COUNT");
    s_expect_refused ("abcdefghijklmnopqrstuvwxyz0123456=1", "NAME of 1..32");
    s_expect_refused ("gpu=two", "the count must be a whole number from 0 to 1024");
    s_expect_refused ("gpu=-1", "not a list of indices");
    s_expect_refused ("gpu=1025", "from 0 to 1024");
    s_expect_refused ("gpu=+2", "the count must be");
    s_expect_refused ("gpu=0,,1", "not a list of indices");
    s_expect_refused ("gpu=0,x", "not a list of indices");
    s_expect_refused ("gpu=3-1", "a range I-J with I <= J");
    s_expect_refused ("gpu=4096,", "indices go from 0 to 4095");
    s_expect_refused ("gpu=0,1,1", "index 1 is listed twice");
    s_expect_refused ("gpu=0-3,2", "index 2 is listed twice");
    s_expect_refused ("gpu=0-1500", "more than 1024 devices");
    s_expect_refused ("fpga=2", "fpga is given twice");

    drover_devices_t *devices = drover_devices_new ();
    char *error = NULL;
    for (int index = 0; index < DROVER_DEVICES_NAMES_MAX; index++) {
        char spec [32];
        snprintf (spec, sizeof spec, "d%d=1", index);
        assert_int_equal (drover_devices_parse (devices, spec, &error), 0);
    }
    assert_int_equal (drover_devices_parse (devices, "more=1", &error), -1);
    assert_non_null (strstr (error, "more than 16 device names"));
    zstr_free (&error);
    drover_devices_destroy (&devices);
}

//  A scratch root with a dev directory holding the named entries
static char *
s_fake_root (const char *const *entries)
{
    char *root = strdup ("/tmp/drover-devices-XXXXXX");
    assert_non_null (mkdtemp (root));
    char *dev = zsys_sprintf ("%s/dev", root);
    assert_int_equal (mkdir (dev, 0755), 0);
    for (size_t index = 0; entries [index]; index++) {
        char *path = zsys_sprintf ("%s/%s", dev, entries [index]);
        FILE *file = fopen (path, "w");
        assert_non_null (file);
        fclose (file);
        zstr_free (&path);
    }
    zstr_free (&dev);
    return root;
}

//  Remove a scratch root made by s_fake_root
static void
s_remove_root (char *root, const char *const *entries)
{
    for (size_t index = 0; entries [index]; index++) {
        char *path = zsys_sprintf ("%s/dev/%s", root, entries [index]);
        unlink (path);
        zstr_free (&path);
    }
    char *dev = zsys_sprintf ("%s/dev", root);
    rmdir (dev);
    zstr_free (&dev);
    rmdir (root);
    free (root);
}

//  GPUs are found as /dev/nvidiaN, not nvidiactl and the like; a given
//  gpu is not detected over
static void
test_detects_dev_entries (void **state)
{
    (void) state;
    const char *const entries [] = { "nvidia0", "nvidia2", "nvidia10", "nvidiactl",
                                     "nvidia-uvm", "nvidia-modeset", "nvidia3x", "null", NULL };
    char *root = s_fake_root (entries);
    drover_devices_t *devices = drover_devices_new ();
    drover_devices_set_probe (devices, root, "", 0);     //  no nvidia-smi
    assert_int_equal (drover_devices_detect (devices), 3);
    assert_string_equal (drover_devices_source (devices, "gpu"), "/dev/nvidia*");
    s_expect_described (devices, "gpu=0,2,10 (/dev/nvidia*)");
    drover_devices_destroy (&devices);

    devices = s_inventory ("gpu=0,1", "fpga=1", NULL);
    drover_devices_set_probe (devices, root, "", 0);
    assert_int_equal (drover_devices_detect (devices), 0);
    s_expect_described (devices, "gpu=0,1 (given) fpga=0 (given)");
    drover_devices_destroy (&devices);
    s_remove_root (root, entries);

    //  No dev directory at all: none, and no gpu name
    devices = drover_devices_new ();
    drover_devices_set_probe (devices, "/nonexistent/drover-root", "", 0);
    assert_int_equal (drover_devices_detect (devices), 0);
    assert_int_equal (drover_devices_size (devices), 0);
    assert_null (drover_devices_source (devices, "gpu"));
    drover_devices_destroy (&devices);
}

//  Expect holder's indices of name
static void
s_expect_held (drover_devices_t *devices, const char *holder, const char *name,
               const char *indices)
{
    char *held = drover_devices_held (devices, holder, name);
    assert_string_equal (held, indices);
    zstr_free (&held);
}

//  Tasks take the lowest free indices, never one held, and give them back
static void
test_takes_and_gives_back (void **state)
{
    (void) state;
    drover_devices_t *devices = s_inventory ("gpu=0,1,3,5", NULL);
    char *error = NULL;
    assert_int_equal (drover_devices_take (devices, "1/1", "gpu", 2, &error), 0);
    s_expect_held (devices, "1/1", "gpu", "0,1");
    assert_int_equal (drover_devices_free (devices, "gpu"), 2);
    assert_int_equal (drover_devices_take (devices, "2/1", "gpu", 1, &error), 0);
    s_expect_held (devices, "2/1", "gpu", "3");

    //  Exhaustion: refused, nothing taken
    assert_int_equal (drover_devices_take (devices, "3/1", "gpu", 2, &error), -1);
    assert_string_equal (error, "gpu: 2 asked, 1 of 4 free");
    zstr_free (&error);
    s_expect_held (devices, "3/1", "gpu", "");
    assert_int_equal (drover_devices_free (devices, "gpu"), 1);
    assert_int_equal (drover_devices_take (devices, "3/1", "fpga", 1, &error), -1);
    assert_string_equal (error, "this worker has no device fpga");
    zstr_free (&error);

    //  The first task's processes are gone: its two are free, the lowest
    //  go to the next task
    assert_int_equal (drover_devices_give_back (devices, "1/1"), 2);
    assert_int_equal (drover_devices_give_back (devices, "1/1"), 0);
    assert_int_equal (drover_devices_free (devices, "gpu"), 3);
    assert_int_equal (drover_devices_take (devices, "3/1", "gpu", 2, &error), 0);
    s_expect_held (devices, "3/1", "gpu", "0,1");
    assert_int_equal (drover_devices_take (devices, "4/1", "gpu", 1, &error), 0);
    s_expect_held (devices, "4/1", "gpu", "5");
    assert_int_equal (drover_devices_free (devices, "gpu"), 0);
    assert_int_equal (drover_devices_take (devices, "5/1", "gpu", 1, &error), -1);
    assert_string_equal (error, "gpu: 1 asked, 0 of 4 free");
    zstr_free (&error);
    drover_devices_destroy (&devices);         //  held ones freed too
}

//  Many tasks taking and giving back at random: no index is ever held
//  twice, and the free count always adds up
static void
test_never_one_index_to_two (void **state)
{
    (void) state;
    drover_devices_t *devices = s_inventory ("gpu=8", NULL);
    bool running [32] = { false };
    uint32_t taken [32] = { 0 };
    uint32_t used = 0;
    srandom (42);
    for (int turn = 0; turn < 2000; turn++) {
        int task = (int) (random () % 32);
        char holder [16];
        snprintf (holder, sizeof holder, "%d/1", task);
        if (running [task]) {
            assert_int_equal (drover_devices_give_back (devices, holder), taken [task]);
            used -= taken [task];
            running [task] = false;
            continue;
        }
        uint32_t count = 1 + (uint32_t) (random () % 3);
        char *error = NULL;
        int rc = drover_devices_take (devices, holder, "gpu", count, &error);
        assert_int_equal (rc == 0, used + count <= 8);
        zstr_free (&error);
        if (rc == 0) {
            running [task] = true;
            taken [task] = count;
            used += count;
        }
        assert_int_equal (drover_devices_free (devices, "gpu"), 8 - used);
        //  Each index of 0..7 is held by at most one running task
        int holders [8] = { 0 };
        for (int other = 0; other < 32; other++) {
            if (!running [other])
                continue;
            snprintf (holder, sizeof holder, "%d/1", other);
            char *held = drover_devices_held (devices, holder, "gpu");
            uint32_t seen = 0;
            for (char *at = held; *at; ) {
                long index = strtol (at, &at, 10);
                assert_true (index >= 0 && index < 8);
                holders [index]++;
                seen++;
                if (*at == ',')
                    at++;
            }
            assert_int_equal (seen, taken [other]);
            zstr_free (&held);
        }
        for (int index = 0; index < 8; index++)
            assert_true (holders [index] <= 1);
    }
    drover_devices_destroy (&devices);
}

//  Return the entries of an env list joined by spaces (caller frees)
static char *
s_joined (zlistx_t *env)
{
    char *text = strdup ("");
    for (char *entry = (char *) zlistx_first (env); entry; entry = (char *) zlistx_next (env)) {
        char *longer = zsys_sprintf ("%s%s%s", text, *text? " ": "", entry);
        free (text);
        text = longer;
    }
    return text;
}

//  A task is told its own indices of every name, and of gpu the CUDA way
static void
test_env_entries (void **state)
{
    (void) state;
    drover_devices_t *devices = s_inventory ("fpga=2", "gpu=0,2,3", NULL);
    char *error = NULL;
    assert_int_equal (drover_devices_take (devices, "7/2", "gpu", 2, &error), 0);
    zlistx_t *env = drover_devices_env (devices, "7/2");
    char *text = s_joined (env);
    assert_string_equal (text, "DROVER_DEVICES_FPGA= DROVER_DEVICES_GPU=0,2 "
                               "CUDA_VISIBLE_DEVICES=0,2 CUDA_DEVICE_ORDER=PCI_BUS_ID");
    free (text);
    zlistx_destroy (&env);

    //  A task that took none sees none: CUDA_VISIBLE_DEVICES empty hides them all
    env = drover_devices_env (devices, "8/1");
    text = s_joined (env);
    assert_string_equal (text, "DROVER_DEVICES_FPGA= DROVER_DEVICES_GPU= "
                               "CUDA_VISIBLE_DEVICES= CUDA_DEVICE_ORDER=PCI_BUS_ID");
    free (text);
    zlistx_destroy (&env);
    drover_devices_destroy (&devices);

    //  No devices: nothing to say
    devices = drover_devices_new ();
    env = drover_devices_env (devices, "1/1");
    assert_int_equal (zlistx_size (env), 0);
    zlistx_destroy (&env);
    drover_devices_destroy (&devices);
}

//  An offer's requests are assigned all or nothing, with the env to export
static void
test_assigns_requests (void **state)
{
    (void) state;
    drover_devices_t *devices = s_inventory ("gpu=2", "nic=4", NULL);
    zlistx_t *env = NULL;
    char *error = NULL;
    drover_devices_request_t both [] = { { "nic", 3 }, { "gpu", 1 } };
    assert_int_equal (drover_devices_assign (devices, "1/1", both, 2, &env, &error), 0);
    char *text = s_joined (env);
    assert_string_equal (text, "DROVER_DEVICES_GPU=0 CUDA_VISIBLE_DEVICES=0 "
                               "CUDA_DEVICE_ORDER=PCI_BUS_ID DROVER_DEVICES_NIC=0,1,2");
    free (text);
    zlistx_destroy (&env);

    //  Refusals take nothing, the first too when a later one fails
    struct {
        drover_devices_request_t requests [2];
        size_t count;
        const char *holder;
        const char *error;
    } refused [] = {
        { { { "gpu", 1 }, { "nic", 2 } }, 2, "2/1", "nic: 2 asked, 1 of 4 free" },
        { { { "gpu", 1 }, { "tpu", 1 } }, 2, "2/1", "this worker has no device tpu" },
        { { { "gpu", 1 }, { "gpu", 0 } }, 2, "2/1", "gpu is asked twice" },
        { { { "nic", 0 } }, 1, "2/1", "nic: a count of 0 asked" },
        { { { "gpu", 1 } }, 1, "1/1", "1/1 holds devices already" },
    };
    for (size_t index = 0; index < sizeof refused / sizeof refused [0]; index++) {
        assert_int_equal (drover_devices_assign (devices, refused [index].holder,
                                                 refused [index].requests, refused [index].count,
                                                 &env, &error), -1);
        assert_null (env);
        assert_string_equal (error, refused [index].error);
        zstr_free (&error);
        assert_int_equal (drover_devices_free (devices, "gpu"), 1);
        assert_int_equal (drover_devices_free (devices, "nic"), 1);
    }

    //  No request: nothing taken, and the task is told it has none
    assert_int_equal (drover_devices_assign (devices, "3/1", NULL, 0, &env, &error), 0);
    text = s_joined (env);
    assert_string_equal (text, "DROVER_DEVICES_GPU= CUDA_VISIBLE_DEVICES= "
                               "CUDA_DEVICE_ORDER=PCI_BUS_ID DROVER_DEVICES_NIC=");
    free (text);
    zlistx_destroy (&env);

    //  Given back, the same request fits again, on the same indices
    assert_int_equal (drover_devices_give_back (devices, "1/1"), 4);
    assert_int_equal (drover_devices_assign (devices, "4/1", both, 2, &env, &error), 0);
    s_expect_held (devices, "4/1", "nic", "0,1,2");
    s_expect_held (devices, "4/1", "gpu", "0");
    zlistx_destroy (&env);
    drover_devices_destroy (&devices);
}

//  What TASK STARTED says a task holds: each name it holds, in the
//  inventory's order, ';' between names
static void
test_says_assigned (void **state)
{
    (void) state;
    drover_devices_t *devices = s_inventory ("gpu=0,2,5", "fpga=4-6", "nic=2", NULL);
    zlistx_t *env = NULL;
    char *error = NULL;
    drover_devices_request_t asked [] = { { "fpga", 1 }, { "gpu", 2 } };
    assert_int_equal (drover_devices_assign (devices, "9/1", asked, 2, &env, &error), 0);
    zlistx_destroy (&env);
    char *text = drover_devices_assigned (devices, "9/1");
    assert_string_equal (text, "gpu=0,2;fpga=4");
    zstr_free (&text);

    //  Another task gets the next ones, a task with none is ""
    drover_devices_request_t one [] = { { "gpu", 1 } };
    assert_int_equal (drover_devices_assign (devices, "10/1", one, 1, &env, &error), 0);
    zlistx_destroy (&env);
    text = drover_devices_assigned (devices, "10/1");
    assert_string_equal (text, "gpu=5");
    zstr_free (&text);
    text = drover_devices_assigned (devices, "11/1");
    assert_string_equal (text, "");
    zstr_free (&text);

    //  Given back, nothing is said
    assert_int_equal (drover_devices_give_back (devices, "9/1"), 3);
    text = drover_devices_assigned (devices, "9/1");
    assert_string_equal (text, "");
    zstr_free (&text);
    drover_devices_destroy (&devices);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_parses_counts_and_lists),
        cmocka_unit_test (test_refuses_bad_values),
        cmocka_unit_test (test_detects_dev_entries),
        cmocka_unit_test (test_takes_and_gives_back),
        cmocka_unit_test (test_never_one_index_to_two),
        cmocka_unit_test (test_env_entries),
        cmocka_unit_test (test_assigns_requests),
        cmocka_unit_test (test_says_assigned),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
