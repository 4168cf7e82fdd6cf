/*  =========================================================================
    test_drover_config - settings: defaults, overrides, files, endpoints
    =========================================================================
*/

#include "testutil.h"
#include "drover_config.h"

//  Write text to a fresh temporary file; returns its path (caller frees)
static char *
s_write_temp (const char *text)
{
    char *path = strdup ("/tmp/drover-config-XXXXXX");
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, text, strlen (text)), (ssize_t) strlen (text));
    close (fd);
    return path;
}

static void
test_defaults_are_documented_values (void **state)
{
    drover_config_t *config = drover_config_new ();
    assert_string_equal (config->endpoint, "tcp://127.0.0.1:5555");
    assert_string_equal (config->events, "tcp://127.0.0.1:5556");
    assert_int_equal (config->lost_after, 5000);
    assert_int_equal (config->probation_timeout, 30000);
    assert_int_equal (config->heartbeat, 1000);
    assert_int_equal (config->lost_retries, 5);
    assert_int_equal (config->insecure, 0);
    drover_config_destroy (&config);
    drover_config_destroy (&config);        //  harmless twice
    assert_null (config);
}

static void
test_set_checks_range_and_names_key (void **state)
{
    drover_config_t *config = drover_config_new ();
    char *error = NULL;
    assert_int_equal (drover_config_set (config, "health/lost-after", "3000", &error), 0);
    assert_int_equal (config->lost_after, 3000);
    assert_int_equal (drover_config_set (config, "health/lost-after", "10", &error), -1);
    assert_non_null (strstr (error, "health/lost-after"));
    assert_int_equal (config->lost_after, 3000);    //  unchanged by a refused value
    zstr_free (&error);
    const char *bad [] = { "", "-5", "12abc", "99999999999999999999", " 700", "+700" };
    for (size_t index = 0; index < sizeof bad / sizeof bad [0]; index++) {
        assert_int_equal (drover_config_set (config, "assign/ack-timeout", bad [index], &error), -1);
        assert_non_null (strstr (error, "assign/ack-timeout"));
        zstr_free (&error);
    }
    assert_int_equal (drover_config_set (config, "health/lost-afterr", "3000", &error), -1);
    assert_non_null (strstr (error, "no such setting"));
    zstr_free (&error);
    drover_config_destroy (&config);
}

static void
test_load_file_applies_values (void **state)
{
    char *path = s_write_temp (
        "#   a drover broker\n"
        "broker\n"
        "    endpoint = \"tcp://127.0.0.1:7000\"   #  where workers connect\n"
        "health\n"
        "    lost-after = 2500\n"
        "probation\n"
        "    timeout = 1000\n");
    drover_config_t *config = drover_config_new ();
    char *error = NULL;
    assert_int_equal (drover_config_load (config, path, &error), 0);
    assert_null (error);
    assert_string_equal (config->endpoint, "tcp://127.0.0.1:7000");
    assert_int_equal (config->lost_after, 2500);
    assert_int_equal (config->probation_timeout, 1000);
    assert_int_equal (config->heartbeat, 1000);     //  untouched keys keep defaults
    drover_config_destroy (&config);
    unlink (path);
    free (path);
}

static void
test_load_file_refuses_bad_value_and_unknown_key (void **state)
{
    char *error = NULL;
    char *path = s_write_temp ("health\n    lost-after = soon\n");
    drover_config_t *config = drover_config_new ();
    assert_int_equal (drover_config_load (config, path, &error), -1);
    assert_non_null (strstr (error, "health/lost-after"));
    zstr_free (&error);
    unlink (path);
    free (path);

    path = s_write_temp ("helth\n    lost-after = 3000\n");
    assert_int_equal (drover_config_load (config, path, &error), -1);
    assert_non_null (strstr (error, "helth/lost-after"));
    zstr_free (&error);
    unlink (path);
    free (path);

    assert_int_equal (drover_config_load (config, "/nonexistent/drover.cfg", &error), -1);
    assert_non_null (strstr (error, "/nonexistent/drover.cfg"));
    zstr_free (&error);
    drover_config_destroy (&config);
}

static void
test_printed_config_loads_back (void **state)
{
    drover_config_t *config = drover_config_new ();
    char *error = NULL;
    assert_int_equal (drover_config_set (config, "assign/max-queued", "1234", &error), 0);
    char *path = strdup ("/tmp/drover-print-XXXXXX");
    int fd = mkstemp (path);
    FILE *file = fdopen (fd, "w");
    drover_config_print (config, file);
    fclose (file);
    drover_config_t *loaded = drover_config_new ();
    assert_int_equal (drover_config_load (loaded, path, &error), 0);
    assert_int_equal (loaded->max_queued, 1234);
    assert_string_equal (loaded->endpoint, config->endpoint);
    drover_config_destroy (&loaded);
    drover_config_destroy (&config);
    unlink (path);
    free (path);
}

static void
test_endpoint_must_be_loopback_unless_insecure (void **state)
{
    char *error = NULL;
    assert_int_equal (drover_config_check_endpoint ("tcp://127.0.0.1:5555", false, &error), 0);
    assert_int_equal (drover_config_check_endpoint ("tcp://localhost:5555", false, &error), 0);
    assert_int_equal (drover_config_check_endpoint ("tcp://[::1]:5555", false, &error), 0);
    assert_int_equal (drover_config_check_endpoint ("ipc:///tmp/drover", false, &error), 0);
    assert_int_equal (drover_config_check_endpoint ("tcp://*:5555", false, &error), -1);
    assert_non_null (strstr (error, "--insecure"));
    zstr_free (&error);
    assert_int_equal (drover_config_check_endpoint ("tcp://10.0.0.1:5555", false, &error), -1);
    zstr_free (&error);
    assert_int_equal (drover_config_check_endpoint ("tcp://127.evil.com:5555", false, &error), -1);
    zstr_free (&error);
    assert_int_equal (drover_config_check_endpoint ("tcp://*:5555", true, &error), 0);
    assert_int_equal (drover_config_check_endpoint ("udp://127.0.0.1:5", true, &error), -1);
    zstr_free (&error);
    assert_int_equal (drover_config_check_endpoint ("tcp://127.0.0.1", true, &error), -1);
    zstr_free (&error);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_defaults_are_documented_values),
        cmocka_unit_test (test_set_checks_range_and_names_key),
        cmocka_unit_test (test_load_file_applies_values),
        cmocka_unit_test (test_load_file_refuses_bad_value_and_unknown_key),
        cmocka_unit_test (test_printed_config_loads_back),
        cmocka_unit_test (test_endpoint_must_be_loopback_unless_insecure),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
