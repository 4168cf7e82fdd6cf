/*  =========================================================================
    test_drover_config - settings: defaults, overrides, files, endpoints
    =========================================================================
*/

#include "testutil.h"
#include "drover_config.h"
#include "drover_defaults.h"
#include "drover_client.h"

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

//  Every default is defined once (drover_defaults.h): the settings table
//  hands each to the config, the client library's endpoints agree, and
//  README's settings table and usage line say the same values
static void
test_defaults_agree_with_header_and_readme (void **state)
{
    drover_config_t *config = drover_config_new ();
    assert_string_equal (config->endpoint, DROVER_DEFAULT_ENDPOINT);
    assert_string_equal (config->events, DROVER_DEFAULT_EVENTS);
    assert_int_equal (config->insecure, DROVER_DEFAULT_INSECURE);
    assert_int_equal (config->max_message, DROVER_DEFAULT_MAX_MESSAGE);
    assert_int_equal (config->hwm, DROVER_DEFAULT_HWM);
    assert_int_equal (config->peer_bytes, DROVER_DEFAULT_PEER_BYTES);
    assert_int_equal (config->heartbeat, DROVER_DEFAULT_HEARTBEAT);
    assert_int_equal (config->lost_after, DROVER_DEFAULT_LOST_AFTER);
    assert_int_equal (config->max_workers, DROVER_DEFAULT_MAX_WORKERS);
    assert_int_equal (config->probation_timeout, DROVER_DEFAULT_PROBATION_TIMEOUT);
    assert_int_equal (config->max_shelve, DROVER_DEFAULT_MAX_SHELVE);
    assert_int_equal (config->min_disk_free, DROVER_DEFAULT_MIN_DISK_FREE);
    assert_int_equal (config->max_leases, DROVER_DEFAULT_MAX_LEASES);
    assert_int_equal (config->ack_timeout, DROVER_DEFAULT_ACK_TIMEOUT);
    assert_int_equal (config->lost_retries, DROVER_DEFAULT_LOST_RETRIES);
    assert_int_equal (config->max_queued, DROVER_DEFAULT_MAX_QUEUED);
    assert_int_equal (config->max_queued_bytes, DROVER_DEFAULT_MAX_QUEUED_BYTES);
    assert_int_equal (config->keep_finished, DROVER_DEFAULT_KEEP_FINISHED);
    assert_int_equal (config->keep_finished_bytes, DROVER_DEFAULT_KEEP_FINISHED_BYTES);
    assert_string_equal (config->state_dir, DROVER_DEFAULT_STATE_DIR);
    assert_string_equal (config->durability, DROVER_DEFAULT_DURABILITY);
    assert_int_equal (config->commit_every, DROVER_DEFAULT_COMMIT_EVERY);
    assert_int_equal (config->restart_grace, DROVER_DEFAULT_RESTART_GRACE);
    assert_int_equal (config->history_count, DROVER_DEFAULT_HISTORY_COUNT);
    assert_int_equal (config->history_age, DROVER_DEFAULT_HISTORY_AGE);
    assert_int_equal (config->history_events, DROVER_DEFAULT_HISTORY_EVENTS);
    assert_string_equal (config->security_key, DROVER_DEFAULT_SECURITY_KEY);
    assert_string_equal (config->security_keys, DROVER_DEFAULT_SECURITY_KEYS);
    assert_int_equal (config->handshake, DROVER_DEFAULT_HANDSHAKE);
    assert_string_equal (DROVER_CLIENT_ENDPOINT, DROVER_DEFAULT_ENDPOINT);
    assert_string_equal (DROVER_CLIENT_EVENTS, DROVER_DEFAULT_EVENTS);

    //  What --print-config says, as "section/key = value" lines
    char *printed = NULL;
    size_t printed_size = 0;
    FILE *stream = open_memstream (&printed, &printed_size);
    assert_non_null (stream);
    drover_config_print (config, stream);
    fclose (stream);
    zhashx_t *defaults = zhashx_new ();     //  "section/key" -> value text
    zhashx_set_destructor (defaults, (zhashx_destructor_fn *) zstr_free);
    char section [64] = "";
    for (char *line = strtok (printed, "\n"); line; line = strtok (NULL, "\n")) {
        char key [64], value [256];
        if (*line != ' ')
            snprintf (section, sizeof section, "%s", line);
        else
        if (sscanf (line, " %63s = %255s", key, value) == 2) {
            char *path = zsys_sprintf ("%s/%s", section, key);
            zhashx_insert (defaults, path, strdup (value));
            zstr_free (&path);
        }
    }
    free (printed);
    assert_int_equal (zhashx_size (defaults), 34);

    //  README's settings table: "| section/key | default | meaning |"
    char *readme = testutil_slurp (DROVER_SOURCE_DIR "/README.md");
    assert_non_null (readme);
    size_t rows = 0;
    for (char *line = strtok (readme, "\n"); line; line = strtok (NULL, "\n")) {
        char path [64], value [64];
        if (sscanf (line, "| %63[a-z-]/%*[a-z-] | %63[0-9] |", path, value) != 2)
            continue;
        sscanf (line, "| %63s |", path);
        const char *actual = (const char *) zhashx_lookup (defaults, path);
        if (!actual || !streq (actual, value))
            fail_msg ("README.md says %s defaults to %s, the config says %s",
                      path, value, actual? actual: "(no such setting)");
        zhashx_delete (defaults, path);
        rows++;
    }
    free (readme);
    //  Every setting but those README gives as flags has its row
    zhashx_delete (defaults, "broker/endpoint");
    zhashx_delete (defaults, "broker/events");
    zhashx_delete (defaults, "broker/insecure");
    zhashx_delete (defaults, "broker/state-dir");
    zhashx_delete (defaults, "broker/durability");
    zhashx_delete (defaults, "broker/metrics");
    zhashx_delete (defaults, "security/key");
    zhashx_delete (defaults, "security/keys");
    for (const char *value = (const char *) zhashx_first (defaults); value;
         value = (const char *) zhashx_next (defaults))
        fail_msg ("README.md's settings table lacks %s (default %s)",
                  (const char *) zhashx_cursor (defaults), value);
    assert_int_equal (rows, 26);
    zhashx_destroy (&defaults);

    //  The flags' defaults, on README's usage line
    readme = testutil_slurp (DROVER_SOURCE_DIR "/README.md");
    assert_non_null (strstr (readme, "[--endpoint " DROVER_DEFAULT_ENDPOINT "]"));
    assert_non_null (strstr (readme, "[--events " DROVER_DEFAULT_EVENTS "]"));
    assert_non_null (strstr (readme, "[--state-dir " DROVER_DEFAULT_STATE_DIR "]"));
    assert_non_null (strstr (readme, "`" DROVER_DEFAULT_DURABILITY "` (default)"));
    free (readme);
    drover_config_destroy (&config);
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
    //  A word setting takes one of its words, and names them when refused
    assert_int_equal (drover_config_set (config, "broker/durability", "sometimes", &error), -1);
    assert_non_null (strstr (error, "broker/durability"));
    assert_non_null (strstr (error, "full, batch, off"));
    zstr_free (&error);
    assert_string_equal (config->durability, "full");
    assert_int_equal (drover_config_set (config, "broker/durability", "batch", &error), 0);
    assert_string_equal (config->durability, "batch");
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
        cmocka_unit_test (test_defaults_agree_with_header_and_readme),
        cmocka_unit_test (test_set_checks_range_and_names_key),
        cmocka_unit_test (test_load_file_applies_values),
        cmocka_unit_test (test_load_file_refuses_bad_value_and_unknown_key),
        cmocka_unit_test (test_printed_config_loads_back),
        cmocka_unit_test (test_endpoint_must_be_loopback_unless_insecure),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
