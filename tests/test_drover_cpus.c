/*  =========================================================================
    test_drover_cpus - CPU lists (broker/cpus): parsed, described, applied
    to every thread, and a real broker kept on the CPU it is given
    =========================================================================
*/

#include "drover_cpus.h"
#include "testutil_proc.h"
#include "testutil_wire.h"
#include "testutil_cluster.h"
#include <pthread.h>
#include <sys/wait.h>

//  Parse text and describe the set again
static void
s_expect_list (const char *text, const char *described)
{
    cpu_set_t set;
    char *error = NULL;
    if (drover_cpus_parse (text, &set, &error))
        fail_msg ("'%s' refused: %s", text, error);
    char buffer [64];
    drover_cpus_format (&set, buffer, sizeof buffer);
    assert_string_equal (buffer, described);
}

//  Lists parse to their CPUs, and describe as ranges
static void
test_parses_and_describes (void **state)
{
    (void) state;
    s_expect_list ("0", "0");
    s_expect_list ("3", "3");
    s_expect_list ("0-3", "0-3");
    s_expect_list ("0,2,4-5", "0,2,4-5");
    s_expect_list ("5,4,0-1", "0-1,4-5");
    s_expect_list ("1,2,3", "1-3");
    s_expect_list ("", "");
    s_expect_list ("1023", "1023");
}

//  What is not a list is refused, with the text in the message
static void
test_refuses_what_is_not_a_list (void **state)
{
    (void) state;
    const char *bad [] = { "a", "0-", "-1", "3-1", "0,", ",0", "0,,1", "1024", "0 1", "0-1x",
                           "99999999999999999999", NULL };
    for (int index = 0; bad [index]; index++) {
        cpu_set_t set;
        char *error = NULL;
        if (drover_cpus_parse (bad [index], &set, &error) == 0)
            fail_msg ("'%s' was taken for a CPU list", bad [index]);
        assert_non_null (strstr (error, "is not a CPU list"));
        assert_non_null (strstr (error, bad [index]));
        zstr_free (&error);
        assert_int_equal (drover_cpus_check (bad [index], &error), -1);
        zstr_free (&error);
    }
}

//  The lowest CPU this thread may run on
static int
s_first_own_cpu (void)
{
    cpu_set_t set;
    assert_int_equal (sched_getaffinity (0, sizeof set, &set), 0);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET (cpu, &set))
            return cpu;
    fail_msg ("no CPU at all");
    return -1;
}

//  A thread that sleeps until told, then says where it may run
static pthread_mutex_t s_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t s_told = PTHREAD_COND_INITIALIZER;
static bool s_go;

//  Wait for s_go, then describe this thread's CPUs into arg
static void *
s_describing_thread (void *arg)
{
    pthread_mutex_lock (&s_lock);
    while (!s_go)
        pthread_cond_wait (&s_told, &s_lock);
    pthread_mutex_unlock (&s_lock);
    drover_cpus_describe_own ((char *) arg, 64);
    return NULL;
}

//  Applying a list moves threads already running and the ones started
//  after; "" leaves everything; a CPU nobody may use is refused
static void
test_applies_to_every_thread (void **state)
{
    (void) state;
    pid_t child = fork ();          //  the test's own affinity stays as it was
    assert_true (child >= 0);
    if (child == 0) {
        char before [64], earlier [64] = "", later [64] = "", own [64];
        drover_cpus_describe_own (before, sizeof before);
        char *error = NULL;
        if (drover_cpus_apply ("", &error))
            _exit (10);
        drover_cpus_describe_own (own, sizeof own);
        if (strcmp (own, before))
            _exit (11);
        pthread_t early;
        pthread_create (&early, NULL, s_describing_thread, earlier);
        char first [16];
        snprintf (first, sizeof first, "%d", s_first_own_cpu ());
        if (drover_cpus_apply (first, &error))
            _exit (12);
        pthread_t late;
        pthread_create (&late, NULL, s_describing_thread, later);
        pthread_mutex_lock (&s_lock);
        s_go = true;
        pthread_cond_broadcast (&s_told);
        pthread_mutex_unlock (&s_lock);
        pthread_join (early, NULL);
        pthread_join (late, NULL);
        drover_cpus_describe_own (own, sizeof own);
        if (strcmp (earlier, first) || strcmp (later, first) || strcmp (own, first))
            _exit (13);
        if (drover_cpus_apply ("1023", &error) == 0 || !strstr (error, "cannot run on CPUs 1023"))
            _exit (14);
        zstr_free (&error);
        drover_cpus_describe_own (own, sizeof own);
        _exit (strcmp (own, first)? 15: 0);     //  a refused list changed nothing
    }
    int status;
    assert_int_equal (waitpid (child, &status, 0), child);
    assert_true (WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 0);
}

//  A thread is allowed exactly the CPU list arg, by its status file
static void
s_assert_thread_on (const char *tid, FILE *status, void *arg)
{
    const char *cpus = (const char *) arg;
    char line [256], allowed [64] = "";
    while (fgets (line, sizeof line, status))
        sscanf (line, "Cpus_allowed_list: %63s", allowed);
    assert_true (*allowed);
    if (strcmp (allowed, cpus))
        fail_msg ("thread %s of the broker may run on %s, not only %s", tid, allowed, cpus);
}

//  Every thread of a process is allowed exactly the CPU list cpus
static void
s_assert_threads_on (pid_t pid, const char *cpus)
{
    int threads = testutil_each_thread (pid, "status", s_assert_thread_on, (void *) cpus);
    assert_true (threads >= 5);     //  the main, libzmq's and the actors
}

//  A broker given broker/cpus runs every thread there, says so, and
//  serves; a broker given a CPU nobody may use refuses to start
static void
test_broker_kept_on_its_cpu (void **state)
{
    (void) state;
    char cpu [16], setting [64];
    snprintf (cpu, sizeof cpu, "%d", s_first_own_cpu ());
    snprintf (setting, sizeof setting, "broker/cpus=%s", cpu);
    const char *flags [] = { "--set", setting, "--set", "broker/durability=off", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    testutil_cluster_add_worker (cluster, 0, "w1", 1, NULL);
    zsock_t *dealer = testutil_dealer (cluster);
    testutil_wait_workers (dealer, 1, 10000);
    char expected [64];
    snprintf (expected, sizeof expected, "broker: cpus %s (broker/cpus)", cpu);
    assert_int_equal (testutil_count_lines_with (testutil_cluster_log (cluster, "broker"),
                                                 expected), 1);
    s_assert_threads_on (cluster->broker, cpu);
    zsock_destroy (&dealer);
    testutil_cluster_destroy (&cluster);

    const char *argv [] = { DROVER_BIN, "broker", "--set", "broker/cpus=1023", NULL };
    char output [1024], errors [1024];
    int status = testutil_run_cli (argv, output, sizeof output, errors, sizeof errors, 10000);
    assert_true (status != -1 && WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 2);
    assert_non_null (strstr (errors, "broker/cpus: cannot run on CPUs 1023"));
    const char *bad [] = { DROVER_BIN, "broker", "--set", "broker/cpus=0-", NULL };
    status = testutil_run_cli (bad, output, sizeof output, errors, sizeof errors, 10000);
    assert_true (status != -1 && WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 2);
    assert_non_null (strstr (errors, "broker/cpus: '0-' is not a CPU list"));
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_parses_and_describes),
        cmocka_unit_test (test_refuses_what_is_not_a_list),
        cmocka_unit_test (test_applies_to_every_thread),
        cmocka_unit_test (test_broker_kept_on_its_cpu),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
