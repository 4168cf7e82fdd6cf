/*  =========================================================================
    test_worker_devices - GPUs detected from a faked nvidia-smi (a script
    printing what the real one prints, one that fails, one that hangs, one
    that is not there), and `drover worker --device`: bad values refused
    at start with status 2, the inventory shown by --help and logged at
    start

    Integration: detection runs the script as a child process.
    =========================================================================
*/

#include "drover_devices.h"
#include "testutil_proc.h"
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define S_WAIT_MAX      15000       //  msec any one step may take at most

//  What nvidia-smi -L prints on a machine with three GPUs, one split by MIG
#define S_SMI_OUTPUT \
    "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5e0b4c1e-0d1c-4f5b-9b39-1d2c3a4b5c6d)\n" \
    "  MIG 1g.5gb     Device  0: (UUID: MIG-1a2b3c4d-0000-1111-2222-333344445555)\n" \
    "GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-6e0b4c1e-0d1c-4f5b-9b39-1d2c3a4b5c6d)\n" \
    "GPU 3: NVIDIA A100-SXM4-40GB (UUID: GPU-7e0b4c1e-0d1c-4f5b-9b39-1d2c3a4b5c6d)\n"

//  A scratch directory: a fake root (dev/nvidia5, dev/nvidiactl) and scripts
typedef struct {
    char dir [64];                  //  the scratch directory
    char root [96];                 //  dir/root, standing for /
    char smi [96];                  //  dir/nvidia-smi: prints S_SMI_OUTPUT
    char failing [96];              //  dir/failing: prints and exits 9
    char hanging [96];              //  dir/hanging: never answers
    char log [96];                  //  dir/worker.log
} s_scratch_t;

//  Write an executable script at path
static void
s_script (const char *path, const char *body)
{
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    fprintf (file, "#!/bin/sh\n%s", body);
    fclose (file);
    assert_int_equal (chmod (path, 0755), 0);
}

//  Make the scratch directory
static int
s_setup (void **state)
{
    s_scratch_t *scratch = (s_scratch_t *) calloc (1, sizeof (s_scratch_t));
    snprintf (scratch->dir, sizeof scratch->dir, "/tmp/drover-wdev-XXXXXX");
    assert_non_null (mkdtemp (scratch->dir));
    snprintf (scratch->root, sizeof scratch->root, "%s/root", scratch->dir);
    char *dev = zsys_sprintf ("%s/dev", scratch->root);
    assert_int_equal (mkdir (scratch->root, 0755), 0);
    assert_int_equal (mkdir (dev, 0755), 0);
    const char *entries [] = { "nvidia5", "nvidiactl" };
    for (size_t index = 0; index < 2; index++) {
        char *path = zsys_sprintf ("%s/%s", dev, entries [index]);
        FILE *file = fopen (path, "w");
        assert_non_null (file);
        fclose (file);
        zstr_free (&path);
    }
    zstr_free (&dev);
    snprintf (scratch->smi, sizeof scratch->smi, "%s/nvidia-smi", scratch->dir);
    snprintf (scratch->failing, sizeof scratch->failing, "%s/failing", scratch->dir);
    snprintf (scratch->hanging, sizeof scratch->hanging, "%s/hanging", scratch->dir);
    snprintf (scratch->log, sizeof scratch->log, "%s/worker.log", scratch->dir);
    s_script (scratch->smi, "[ \"$1\" = -L ] || exit 2\ncat <<'EOF'\n" S_SMI_OUTPUT "EOF\n");
    s_script (scratch->failing, "echo 'NVIDIA-SMI has failed because it couldn'\\''t "
                                "communicate with the NVIDIA driver.'\necho 'GPU 7: x'\nexit 9\n");
    s_script (scratch->hanging, "echo 'GPU 0: first'\nsleep 60\necho 'GPU 1: never'\n");
    *state = scratch;
    return 0;
}

//  Remove the scratch directory
static int
s_teardown (void **state)
{
    s_scratch_t *scratch = (s_scratch_t *) *state;
    testutil_remove_tree (scratch->dir);
    free (scratch);
    return 0;
}

//  Detect with root and command; return the description (caller frees)
static char *
s_detected (const char *root, const char *command, uint32_t timeout, uint32_t *found_p)
{
    drover_devices_t *devices = drover_devices_new ();
    drover_devices_set_probe (devices, root, command, timeout);
    *found_p = drover_devices_detect (devices);
    char *described = drover_devices_describe (devices);
    drover_devices_destroy (&devices);
    return described;
}

//  nvidia-smi's "GPU N:" lines are the GPUs, over /dev's entries
static void
test_detects_from_nvidia_smi (void **state)
{
    s_scratch_t *scratch = (s_scratch_t *) *state;
    uint32_t found;
    char *described = s_detected (scratch->root, scratch->smi, 0, &found);
    assert_int_equal (found, 3);
    assert_string_equal (described, "gpu=0,1,3 (nvidia-smi)");
    zstr_free (&described);
}

//  A failing or absent nvidia-smi finds none: /dev's entries count then
static void
test_failing_or_absent_falls_back (void **state)
{
    s_scratch_t *scratch = (s_scratch_t *) *state;
    uint32_t found;
    char *described = s_detected (scratch->root, scratch->failing, 0, &found);
    assert_int_equal (found, 1);
    assert_string_equal (described, "gpu=5 (/dev/nvidia*)");
    zstr_free (&described);

    char *absent = zsys_sprintf ("%s/no-such-nvidia-smi", scratch->dir);
    described = s_detected (scratch->root, absent, 0, &found);
    assert_int_equal (found, 1);
    assert_string_equal (described, "gpu=5 (/dev/nvidia*)");
    zstr_free (&described);

    //  Neither: none, and no gpu in the inventory
    char *empty = zsys_sprintf ("%s/empty", scratch->dir);
    assert_int_equal (mkdir (empty, 0755), 0);
    described = s_detected (empty, absent, 0, &found);
    assert_int_equal (found, 0);
    assert_string_equal (described, "none");
    zstr_free (&described);
    zstr_free (&absent);
    zstr_free (&empty);
}

//  An nvidia-smi that hangs is killed at the timeout, with what it started,
//  and finds none: what it printed before counts for nothing
static void
test_hanging_is_killed (void **state)
{
    s_scratch_t *scratch = (s_scratch_t *) *state;
    int64_t started = zclock_mono ();
    uint32_t found;
    char *described = s_detected (scratch->root, scratch->hanging, 300, &found);
    int64_t took = zclock_mono () - started;
    assert_true (took >= 300);
    assert_true (took < 5000);
    assert_int_equal (found, 1);
    assert_string_equal (described, "gpu=5 (/dev/nvidia*)");
    zstr_free (&described);
}

//  Run `drover worker` with args (NULL-terminated) and the probe
//  variables set; returns the exit status (it must exit), output and
//  errors filled
static int
s_worker (s_scratch_t *scratch, char *output, size_t size, char *errors, size_t errors_size,
          const char *first, ...)
{
    setenv ("DROVER_DETECT_ROOT", scratch->root, 1);
    setenv ("DROVER_NVIDIA_SMI", scratch->smi, 1);
    const char *const prefix [] = { DROVER_BIN, "worker", NULL };
    va_list args;
    va_start (args, first);
    int status = testutil_run_cli_va (prefix, first, args, output, size, errors, errors_size);
    va_end (args);
    unsetenv ("DROVER_DETECT_ROOT");
    unsetenv ("DROVER_NVIDIA_SMI");
    return status;
}

//  Bad --device values stop the agent at start, status 2, saying why
static void
test_agent_refuses_bad_devices (void **state)
{
    s_scratch_t *scratch = (s_scratch_t *) *state;
    char output [4096], errors [4096];
    struct {
        const char *value;
        const char *says;
    } bad [] = {
        { "gpu", "drover worker: --device 'gpu': must be NAME=COUNT or NAME=I,J" },
        { "Gpu=2", "drover worker: --device 'Gpu=2': must be NAME=COUNT" },
        { "gpu=lots", "the count must be a whole number from 0 to 1024" },
        { "gpu=0,0", "index 0 is listed twice" },
    };
    for (size_t index = 0; index < sizeof bad / sizeof bad [0]; index++) {
        int status = s_worker (scratch, output, sizeof output, errors, sizeof errors,
                               "--device", bad [index].value, NULL);
        assert_int_equal (status, 2);
        if (!strstr (errors, bad [index].says))
            fail_msg ("--device %s: '%s' does not say '%s'", bad [index].value, errors,
                      bad [index].says);
    }
    int status = s_worker (scratch, output, sizeof output, errors, sizeof errors,
                           "--device", "gpu=1", "--device", "gpu=2", NULL);
    assert_int_equal (status, 2);
    assert_non_null (strstr (errors, "--device 'gpu=2': gpu is given twice"));
    status = s_worker (scratch, output, sizeof output, errors, sizeof errors, "--device", NULL);
    assert_int_equal (status, 2);
    assert_non_null (strstr (errors, "--device needs a value"));
}

//  --help shows what this machine has: the faked GPUs, and what --device
//  gave before it
static void
test_agent_help_shows_devices (void **state)
{
    s_scratch_t *scratch = (s_scratch_t *) *state;
    char output [16384], errors [4096];
    int status = s_worker (scratch, output, sizeof output, errors, sizeof errors, "--help", NULL);
    assert_int_equal (status, 0);
    assert_non_null (strstr (output, "--device NAME=COUNT|NAME=I,J,..."));
    assert_non_null (strstr (output, "(here: gpu=0,1,3 (nvidia-smi))"));
    status = s_worker (scratch, output, sizeof output, errors, sizeof errors,
                       "--device", "gpu=2", "--device", "fpga=4-7", "--help", NULL);
    assert_int_equal (status, 0);
    assert_non_null (strstr (output, "(here: gpu=0,1 (given) fpga=4-7 (given))"));
}

//  The agent logs its inventory at start, before any broker answers
static void
test_agent_logs_devices (void **state)
{
    s_scratch_t *scratch = (s_scratch_t *) *state;
    char *endpoint = zsys_sprintf ("tcp://127.0.0.1:%d", testutil_free_port ());
    const char *const argv [] = { DROVER_BIN, "worker", "--broker", endpoint,
                                  "--device", "nic=2", NULL };
    setenv ("DROVER_DETECT_ROOT", scratch->root, 1);
    setenv ("DROVER_NVIDIA_SMI", scratch->smi, 1);
    pid_t worker = testutil_spawn (argv, scratch->log);
    unsetenv ("DROVER_DETECT_ROOT");
    unsetenv ("DROVER_NVIDIA_SMI");
    assert_true (worker > 0);
    bool logged = testutil_await_line (scratch->log,
                                       "worker: devices nic=0,1 (given) gpu=0,1,3 (nvidia-smi)",
                                       S_WAIT_MAX);
    testutil_stop (worker, 5000);
    if (!logged) {
        char *text = testutil_slurp (scratch->log);
        fail_msg ("no devices line in:\n%s", text? text: "(no log)");
    }
    zstr_free (&endpoint);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test_setup_teardown (test_detects_from_nvidia_smi, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_failing_or_absent_falls_back, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_hanging_is_killed, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_agent_refuses_bad_devices, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_agent_help_shows_devices, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_agent_logs_devices, s_setup, s_teardown),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
