/*  =========================================================================
    test_drover_config - settings: defaults, overrides, files, endpoints
    =========================================================================
*/

#include "testutil_proc.h"
#include "testutil_cluster.h"
#include <sys/wait.h>
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
//  docs/operating.md's settings table and usage line and docs/durability.md
//  say the same values
static void
test_defaults_agree_with_header_and_docs (void **state)
{
    drover_config_t *config = drover_config_new ();
    assert_string_equal (config->endpoint, DROVER_DEFAULT_ENDPOINT);
    assert_string_equal (config->events, DROVER_DEFAULT_EVENTS);
    assert_int_equal (config->insecure, DROVER_DEFAULT_INSECURE);
    assert_int_equal (config->max_message, DROVER_DEFAULT_MAX_MESSAGE);
    assert_int_equal (config->hwm, DROVER_DEFAULT_HWM);
    assert_int_equal (config->peer_bytes, DROVER_DEFAULT_PEER_BYTES);
    assert_int_equal (config->silent_timeout, DROVER_DEFAULT_SILENT_TIMEOUT);
    assert_int_equal (config->member_reserve, DROVER_DEFAULT_MEMBER_RESERVE);
    assert_int_equal (config->max_per_address, DROVER_DEFAULT_MAX_PER_ADDRESS);
    assert_int_equal (config->heartbeat, DROVER_DEFAULT_HEARTBEAT);
    assert_int_equal (config->lost_after, DROVER_DEFAULT_LOST_AFTER);
    assert_int_equal (config->max_workers, DROVER_DEFAULT_MAX_WORKERS);
    assert_int_equal (config->heartbeat_rate, DROVER_DEFAULT_HEARTBEAT_RATE);
    assert_int_equal (config->grace, DROVER_DEFAULT_GRACE);
    assert_int_equal (config->probation_timeout, DROVER_DEFAULT_PROBATION_TIMEOUT);
    assert_int_equal (config->max_shelve, DROVER_DEFAULT_MAX_SHELVE);
    assert_int_equal (config->min_disk_free, DROVER_DEFAULT_MIN_DISK_FREE);
    assert_int_equal (config->max_leases, DROVER_DEFAULT_MAX_LEASES);
    assert_int_equal (config->ack_timeout, DROVER_DEFAULT_ACK_TIMEOUT);
    assert_int_equal (config->offer_ahead, DROVER_DEFAULT_OFFER_AHEAD);
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
    assert_string_equal (config->pool.name, DROVER_DEFAULT_POOL_NAME);
    assert_string_equal (config->pool.driver, DROVER_DEFAULT_POOL_DRIVER);
    assert_string_equal (config->pool.command, DROVER_DEFAULT_POOL_COMMAND);
    assert_string_equal (config->pool.worker, DROVER_DEFAULT_POOL_WORKER);
    assert_string_equal (config->pool.local_dir, DROVER_DEFAULT_POOL_LOCAL_DIR);
    assert_string_equal (config->pool.broker, DROVER_DEFAULT_POOL_BROKER);
    assert_int_equal (config->pool.max_instances, DROVER_DEFAULT_POOL_MAX_INSTANCES);
    assert_true (config->pool.max_price == DROVER_DEFAULT_POOL_MAX_PRICE);
    assert_int_equal (config->pool.min_instances, DROVER_DEFAULT_POOL_MIN_INSTANCES);
    assert_int_equal (config->pool.max_creates, DROVER_DEFAULT_POOL_MAX_CREATES);
    assert_int_equal (config->pool.ops_per_second, DROVER_DEFAULT_POOL_OPS_PER_SECOND);
    assert_int_equal (config->pool.boot_timeout, DROVER_DEFAULT_POOL_BOOT_TIMEOUT);
    assert_int_equal (config->pool.idle_timeout, DROVER_DEFAULT_POOL_IDLE_TIMEOUT);
    assert_int_equal (config->pool.probe_timeout, DROVER_DEFAULT_POOL_PROBE_TIMEOUT);
    assert_int_equal (config->pool.shutdown_timeout, DROVER_DEFAULT_POOL_SHUTDOWN_TIMEOUT);
    assert_int_equal (config->pool.quota_backoff, DROVER_DEFAULT_POOL_QUOTA_BACKOFF);
    assert_int_equal (config->pool.rate_backoff, DROVER_DEFAULT_POOL_RATE_BACKOFF);
    assert_int_equal (config->pool.warn_failures, DROVER_DEFAULT_POOL_WARN_FAILURES);
    assert_int_equal (config->pool.list_interval, DROVER_DEFAULT_POOL_LIST_INTERVAL);
    assert_int_equal (config->pool.op_timeout, DROVER_DEFAULT_POOL_OP_TIMEOUT);
    assert_int_equal (config->pool.ntypes, 0);      //  no types: no pool
    assert_int_equal (config->service.term, DROVER_DEFAULT_SERVICE_TERM);
    assert_int_equal (config->service.gather_timeout, DROVER_DEFAULT_SERVICE_GATHER_TIMEOUT);
    assert_int_equal (config->service.restart_delay, DROVER_DEFAULT_SERVICE_RESTART_DELAY);
    assert_int_equal (config->service.max_restart_delay,
                      DROVER_DEFAULT_SERVICE_MAX_RESTART_DELAY);
    assert_int_equal (config->service.stable_after, DROVER_DEFAULT_SERVICE_STABLE_AFTER);
    assert_int_equal (config->service.crash_warn, DROVER_DEFAULT_SERVICE_CRASH_WARN);
    assert_int_equal (config->service.max_stop_percent,
                      DROVER_DEFAULT_SERVICE_MAX_STOP_PERCENT);
    assert_int_equal (config->service.max_services, DROVER_DEFAULT_SERVICE_MAX_SERVICES);
    assert_int_equal (config->service.max_replicas, DROVER_DEFAULT_SERVICE_MAX_REPLICAS);
    assert_int_equal (config->affinity_wait, DROVER_DEFAULT_AFFINITY_WAIT);
    assert_string_equal (config->cpus, DROVER_DEFAULT_CPUS);
    assert_string_equal (config->log_level, DROVER_DEFAULT_LOG_LEVEL);
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
    assert_int_equal (zhashx_size (defaults), 99);

    //  docs/operating.md's settings table: "| section/key | default | meaning |"
    char *readme = testutil_slurp (DROVER_SOURCE_DIR "/docs/operating.md");
    assert_non_null (readme);
    size_t rows = 0;
    for (char *line = strtok (readme, "\n"); line; line = strtok (NULL, "\n")) {
        //  A number, or a string in quotes ("" for none)
        char path [64], value [64];
        if (sscanf (line, "| %63[a-z-]/%*[a-z-] | %63[0-9] |", path, value) != 2
        &&  sscanf (line, "| %63[a-z-]/%*[a-z-] | \"%63[^\"|]\" |", path, value) != 2
        &&  sscanf (line, "| %63[a-z-]/%*[a-z-] | %63[\"] |", path, value) != 2)
            continue;
        sscanf (line, "| %63s | %63s |", path, value);
        const char *actual = (const char *) zhashx_lookup (defaults, path);
        if (!actual || !streq (actual, value))
            fail_msg ("docs/operating.md says %s defaults to %s, the config says %s",
                      path, value, actual? actual: "(no such setting)");
        zhashx_delete (defaults, path);
        rows++;
    }
    free (readme);
    //  Every setting but those docs/operating.md gives as flags has its row
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
        fail_msg ("docs/operating.md's settings table lacks %s (default %s)",
                  (const char *) zhashx_cursor (defaults), value);
    assert_int_equal (rows, 92);
    zhashx_destroy (&defaults);

    //  The flags' defaults, on docs/operating.md's usage line
    readme = testutil_slurp (DROVER_SOURCE_DIR "/docs/operating.md");
    assert_non_null (strstr (readme, "[--endpoint " DROVER_DEFAULT_ENDPOINT "]"));
    assert_non_null (strstr (readme, "[--events " DROVER_DEFAULT_EVENTS "]"));
    assert_non_null (strstr (readme, "[--state-dir " DROVER_DEFAULT_STATE_DIR "]"));
    free (readme);
    //  The default durability, in docs/durability.md's table of modes
    readme = testutil_slurp (DROVER_SOURCE_DIR "/docs/durability.md");
    assert_non_null (readme);
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
    //  A CPU list is checked as the broker applies it, and may be ""
    assert_int_equal (drover_config_set (config, "broker/cpus", "0-", &error), -1);
    assert_non_null (strstr (error, "broker/cpus: '0-' is not a CPU list"));
    zstr_free (&error);
    assert_string_equal (config->cpus, "");
    assert_int_equal (drover_config_set (config, "broker/cpus", "0,2-3", &error), 0);
    assert_string_equal (config->cpus, "0,2-3");
    assert_int_equal (drover_config_set (config, "broker/cpus", "", &error), 0);
    assert_string_equal (config->cpus, "");
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

//  The pool's section: settings, and instance types as
//  pool/type/NAME/{procs,memory,labels,price}
static void
test_pool_types_load_from_file (void **state)
{
    char *path = s_write_temp (
        "pool\n"
        "    driver = local\n"
        "    max-instances = 3\n"
        "    idle-timeout = 5000\n"
        "    max-price = 2.5\n"
        "    type\n"
        "        small\n"
        "            procs = 2\n"
        "            memory = 4G\n"
        "            price = 0.10\n"
        "        big\n"
        "            procs = 16\n"
        "            memory = 64GB\n"
        "            labels = \"gpu=1,zone=a\"\n"
        "            devices = \"gpu=4, fpga=1\"\n"
        "            price = 1.20\n");
    drover_config_t *config = drover_config_new ();
    char *error = NULL;
    assert_int_equal (drover_config_load (config, path, &error), 0);
    assert_null (error);
    assert_int_equal (config->pool.max_instances, 3);
    assert_int_equal (config->pool.idle_timeout, 5000);
    assert_true (config->pool.max_price == 2.5);
    assert_int_equal (config->pool.ntypes, 2);
    assert_string_equal (config->pool.types [0].name, "small");
    assert_int_equal (config->pool.types [0].procs, 2);
    assert_true (config->pool.types [0].mem == 4ULL << 30);
    assert_string_equal (config->pool.types [0].labels, "");
    assert_true (config->pool.types [0].price == 0.10);
    assert_string_equal (config->pool.types [1].name, "big");
    assert_true (config->pool.types [1].mem == 64ULL << 30);
    assert_string_equal (config->pool.types [1].labels, "gpu=1\nzone=a");
    assert_string_equal (config->pool.types [1].devices, "fpga=1,gpu=4");
    assert_null (config->pool.types [0].devices);
    assert_true (config->pool.types [1].price == 1.20);
    assert_int_equal (drover_config_check_pool (config, &error), 0);

    //  A --set reaches a type too, and the printed config loads back
    assert_int_equal (drover_config_set_assignment (config, "pool/type/big/procs=32", &error), 0);
    assert_int_equal (config->pool.types [1].procs, 32);
    char *printed = strdup ("/tmp/drover-print-XXXXXX");
    int fd = mkstemp (printed);
    FILE *file = fdopen (fd, "w");
    drover_config_print (config, file);
    fclose (file);
    drover_config_t *loaded = drover_config_new ();
    assert_int_equal (drover_config_load (loaded, printed, &error), 0);
    assert_int_equal (loaded->pool.ntypes, 2);
    assert_int_equal (loaded->pool.types [1].procs, 32);
    assert_string_equal (loaded->pool.types [1].labels, "gpu=1\nzone=a");
    assert_string_equal (loaded->pool.types [1].devices, "fpga=1,gpu=4");
    assert_true (loaded->pool.types [1].price == 1.20);
    assert_true (loaded->pool.max_price == 2.5);

    //  A heap copy for the pool actor owns its strings
    drover_poolconfig_t *copy = drover_poolconfig_dup (&loaded->pool);
    drover_config_destroy (&loaded);
    assert_string_equal (copy->types [1].labels, "gpu=1\nzone=a");
    assert_string_equal (copy->driver, "local");
    drover_poolconfig_destroy (&copy);
    drover_poolconfig_destroy (&copy);      //  harmless twice
    unlink (printed);
    free (printed);
    drover_config_destroy (&config);
    unlink (path);
    free (path);
}

//  Load a one-off text; returns the error (caller frees) or NULL
static char *
s_load_error (const char *text, bool check)
{
    char *path = s_write_temp (text);
    drover_config_t *config = drover_config_new ();
    char *error = NULL;
    if (drover_config_load (config, path, &error) == 0 && check)
        drover_config_check_pool (config, &error);
    drover_config_destroy (&config);
    unlink (path);
    free (path);
    return error;
}

//  Each bad pool setting is refused with a message naming its key
static void
test_pool_refuses_bad_settings_naming_key (void **state)
{
    struct {
        const char *text;               //  the file
        const char *key;                //  what the message must name
    } cases [] = {
        { "pool\n    type\n        small\n            memory = 4G\n",
          "pool/type/small/procs" },
        { "pool\n    type\n        small\n            procs = 2\n            price = cheap\n",
          "pool/type/small/price" },
        { "pool\n    type\n        small\n            procs = 2\n            price = -1\n",
          "pool/type/small/price" },
        { "pool\n    type\n        small\n            procs = 2\n            colour = red\n",
          "pool/type/small/colour" },
        { "pool\n    type\n        small\n            procs = 0\n", "pool/type/small/procs" },
        { "pool\n    type\n        small\n            procs = 2\n            memory = 4Q\n",
          "pool/type/small/memory" },
        { "pool\n    type\n        small\n            procs = 2\n            labels = \"gpu\"\n",
          "pool/type/small/labels" },
        { "pool\n    type\n        small\n            procs = 2\n            devices = \"gpu=0\"\n",
          "pool/type/small/devices" },
        { "pool\n    type\n        sm@ll\n            procs = 2\n", "pool/type/sm@ll" },
        { "pool\n    driver = docker\n", "pool/driver" },
        { "pool\n    max-price = lots\n", "pool/max-price" },
        { "pool\n    max-instances = 0\n", "pool/max-instances" },
        { "pool\n    driver = command\n    command = /nonexistent/driver\n"
          "    type\n        small\n            procs = 2\n", "pool/command" },
        { "pool\n    driver = command\n    type\n        small\n            procs = 2\n",
          "pool/command" },
        { "pool\n    max-instances = 2\n    min-instances = 3\n"
          "    type\n        small\n            procs = 2\n", "pool/min-instances" },
    };
    for (size_t index = 0; index < sizeof cases / sizeof cases [0]; index++) {
        char *error = s_load_error (cases [index].text, true);
        if (!error || !strstr (error, cases [index].key))
            fail_msg ("case %zu: expected an error naming %s, got %s", index, cases [index].key,
                      error? error: "none");
        zstr_free (&error);
    }
    //  At most 64 types
    char *text = strdup ("pool\n    type\n");
    for (int type = 0; type < DROVER_POOL_TYPES_MAX + 1; type++) {
        char *more = zsys_sprintf ("%s        t%d\n            procs = 1\n", text, type);
        free (text);
        text = more;
    }
    char *error = s_load_error (text, false);
    assert_non_null (error);
    assert_non_null (strstr (error, "pool/type/t64"));
    assert_non_null (strstr (error, "64"));
    zstr_free (&error);
    free (text);
    //  The command driver with an executable file passes
    error = s_load_error ("pool\n    driver = command\n    command = /bin/true\n"
                          "    type\n        small\n            procs = 2\n", true);
    assert_null (error);
}

//  Sizes as `drover worker --mem` takes them
//  The reconciler's settings (service/...) and schedq/affinity-wait load
//  from a file, and a value out of range is refused naming its key
static void
test_service_settings_load_and_check_range (void **state)
{
    char *path = s_write_temp (
        "service\n"
        "    term = 500\n"
        "    gather-timeout = 100\n"
        "    restart-delay = 0\n"
        "    max-restart-delay = 8000\n"
        "    stable-after = 2000\n"
        "    crash-warn = 5\n"
        "    max-stop-percent = 100\n"
        "    max-services = 3\n"
        "    max-replicas = 40\n"
        "schedq\n"
        "    affinity-wait = 250\n");
    drover_config_t *config = drover_config_new ();
    char *error = NULL;
    assert_int_equal (drover_config_load (config, path, &error), 0);
    assert_null (error);
    assert_int_equal (config->service.term, 500);
    assert_int_equal (config->service.gather_timeout, 100);
    assert_int_equal (config->service.restart_delay, 0);
    assert_int_equal (config->service.max_restart_delay, 8000);
    assert_int_equal (config->service.stable_after, 2000);
    assert_int_equal (config->service.crash_warn, 5);
    assert_int_equal (config->service.max_stop_percent, 100);
    assert_int_equal (config->service.max_services, 3);
    assert_int_equal (config->service.max_replicas, 40);
    assert_int_equal (config->affinity_wait, 250);
    unlink (path);
    free (path);
    const char *bad [][2] = {
        { "service/term", "99" },               //  a term shorter than 100 msec
        { "service/gather-timeout", "9" },
        { "service/crash-warn", "0" },
        { "service/max-stop-percent", "101" },  //  a percent
        { "service/max-services", "0" },
        { "service/max-services", "10001" },    //  SERVICE TABLE lists 10000 at most
        { "service/max-replicas", "0" },
        { "schedq/affinity-wait", "3600001" },
    };
    for (size_t index = 0; index < sizeof bad / sizeof bad [0]; index++) {
        assert_int_equal (drover_config_set (config, bad [index][0], bad [index][1], &error), -1);
        assert_non_null (strstr (error, bad [index][0]));
        zstr_free (&error);
    }
    assert_int_equal (config->service.term, 500);       //  unchanged by what was refused
    assert_int_equal (config->service.max_services, 3);
    drover_config_destroy (&config);
}

static void
test_parse_size_takes_worker_suffixes (void **state)
{
    uint64_t bytes;
    assert_int_equal (drover_config_parse_size ("512", &bytes), 0);
    assert_true (bytes == 512);
    assert_int_equal (drover_config_parse_size ("512M", &bytes), 0);
    assert_true (bytes == 512ULL << 20);
    assert_int_equal (drover_config_parse_size ("16gb", &bytes), 0);
    assert_true (bytes == 16ULL << 30);
    assert_int_equal (drover_config_parse_size ("1T", &bytes), 0);
    assert_true (bytes == 1ULL << 40);
    const char *bad [] = { "", "0", "G", "4X", "-4G", "4 G" };
    for (size_t index = 0; index < sizeof bad / sizeof bad [0]; index++)
        assert_int_equal (drover_config_parse_size (bad [index], &bytes), -1);
}

//  Apply --set assignments (NULL-ended) to fresh settings and return
//  what drover_config_check_together says (caller frees), or NULL
static char *
s_together_error (const char *const assignments [])
{
    drover_config_t *config = drover_config_new ();
    char *error = NULL;
    for (size_t index = 0; assignments [index]; index++)
        if (drover_config_set_assignment (config, assignments [index], &error))
            fail_msg ("%s: %s", assignments [index], error);
    drover_config_check_together (config, &error);
    drover_config_destroy (&config);
    return error;
}

//  A setting that takes effect only with another is refused without it,
//  naming itself and what is missing; with it, or at its default, not
static void
test_settings_that_do_nothing_are_refused (void **state)
{
    struct {
        const char *set [5];            //  --set assignments
        const char *names [3];          //  what the message must name
    } refused [] = {
        { { "pool/driver=local", "pool/max-instances=2", NULL },
          { "pool/max-instances", "pool/type/NAME/procs", NULL } },
        { { "pool/driver=command", "pool/command=/bin/true", NULL },
          { "pool/driver, pool/command need", "pool/type/NAME/procs", NULL } },
        { { "pool/min-instances=1", NULL }, { "pool/min-instances", "pool/type/", NULL } },
        { { "pool/type/small/procs=2", "pool/command=/bin/true", NULL },
          { "pool/command needs pool/driver = command", NULL } },
        { { "pool/type/small/procs=2", "pool/driver=command", "pool/command=/bin/true",
            "pool/local-dir=/tmp", NULL },
          { "pool/local-dir needs pool/driver = local", NULL } },
        { { "pool/type/small/procs=2", "pool/max-price=3", NULL },
          { "pool/max-price", "pool/type/NAME/price", NULL } },
        { { "ha/name=b1", "ha/lease-ttl=2000", NULL }, { "ha/name, ha/lease-ttl", "ha/etcd", NULL } },
        { { "ha/advertise=tcp://10.0.0.1:5555", NULL }, { "ha/advertise", "ha/etcd", NULL } },
        { { "ha/queues=a=6001", NULL }, { "ha/queues needs several brokers", "ha/etcd", NULL } },
        { { "ha/strategy=spread", NULL }, { "ha/strategy", "ha/etcd", NULL } },
        { { "security/keys=/etc/drover/keys", NULL }, { "security/keys", "security/key", NULL } },
        { { "security/key=/etc/drover/broker.key", NULL }, { "security/key", "security/keys", NULL } },
        { { "broker/metrics-public=1", NULL }, { "broker/metrics-public", "broker/metrics", NULL } },
        { { "broker/commit-every=50", NULL }, { "broker/commit-every", "durability = batch", NULL } },
        { { "broker/durability=off", "broker/commit-every=50", NULL },
          { "broker/commit-every", "durability = batch", NULL } },
        { { "sched/preempt-max=2", NULL }, { "sched/preempt-max", "sched/preemption = on", NULL } },
    };
    for (size_t index = 0; index < sizeof refused / sizeof refused [0]; index++) {
        char *error = s_together_error (refused [index].set);
        for (size_t name = 0; refused [index].names [name]; name++)
            if (!error || !strstr (error, refused [index].names [name]))
                fail_msg ("case %zu (%s): expected an error naming '%s', got %s", index,
                          refused [index].set [0], refused [index].names [name],
                          error? error: "none");
        zstr_free (&error);
    }
    const char *const passed [][6] = {
        { NULL },                                       //  the defaults
        { "pool/driver=local", NULL },                  //  a default value, however given
        { "pool/type/small/procs=2", "pool/max-instances=2", "pool/local-dir=/tmp", NULL },
        { "pool/type/small/procs=2", "pool/type/small/price=0.1", "pool/max-price=3", NULL },
        { "pool/type/small/procs=2", "pool/driver=command", "pool/command=/bin/true", NULL },
        { "ha/etcd=http://127.0.0.1:2379", "ha/name=b1", "ha/queues=a=6001", NULL },
        { "security/key=/k/broker.key", "security/keys=/k/keys", "security/handshake=500",
          NULL },
        { "broker/metrics=127.0.0.1:9464", "broker/metrics-public=1", NULL },
        { "broker/durability=batch", "broker/commit-every=50", NULL },
        { "broker/durability=off", "store/history-count=5", NULL },     //  a warning: below
        { "sched/preemption=on", "sched/preempt-max=2", NULL },
    };
    for (size_t index = 0; index < sizeof passed / sizeof passed [0]; index++) {
        char *error = s_together_error (passed [index]);
        if (error)
            fail_msg ("case %zu (%s): refused: %s", index,
                      passed [index][0]? passed [index][0]: "defaults", error);
    }
    //  Every setting printed, as --print-config writes them, loads and
    //  passes: each holds its default
    char *printed = strdup ("/tmp/drover-print-XXXXXX");
    int fd = mkstemp (printed);
    FILE *file = fdopen (fd, "w");
    drover_config_t *config = drover_config_new ();
    drover_config_print (config, file);
    fclose (file);
    drover_config_destroy (&config);
    config = drover_config_new ();
    char *error = NULL;
    assert_int_equal (drover_config_load (config, printed, &error), 0);
    assert_int_equal (drover_config_check_together (config, &error), 0);
    assert_null (drover_config_idle (config));
    drover_config_destroy (&config);
    unlink (printed);
    free (printed);
}

//  Settings idle because durability is off on purpose are said, not refused
static void
test_settings_idle_with_durability_off_are_said (void **state)
{
    drover_config_t *config = drover_config_new ();
    char *error = NULL;
    assert_int_equal (drover_config_set_assignment (config, "store/history-count=5", &error), 0);
    assert_int_equal (drover_config_set_assignment (config, "assign/restart-grace=100", &error),
                      0);
    assert_null (drover_config_idle (config));      //  durability full: they work
    assert_int_equal (drover_config_set_assignment (config, "broker/durability=off", &error), 0);
    char *idle = drover_config_idle (config);
    assert_non_null (idle);
    assert_non_null (strstr (idle, "assign/restart-grace, store/history-count need"));
    assert_non_null (strstr (idle, "broker/durability is off"));
    zstr_free (&idle);
    assert_int_equal (drover_config_check_together (config, &error), 0);
    drover_config_destroy (&config);
}

//  A real broker given pool settings but no instance type, or CURVE keys
//  without its key pair, exits 2 naming what is missing, before binding;
//  one with durability off and a history setting starts and says so
static void
test_broker_refuses_settings_that_do_nothing (void **state)
{
    struct {
        const char *flags [5];
        const char *names [2];
    } cases [] = {
        { { "--set", "pool/driver=local", "--set", "pool/max-instances=2", NULL },
          { "pool/max-instances", "pool/type/NAME/procs" } },
        { { "--keys", "/nonexistent/keys", NULL }, { "security/keys", "security/key (--key)" } },
        { { "--name", "b1", NULL }, { "ha/name", "ha/etcd" } },
    };
    //  Were one started, it would bind free ports and keep nothing
    char endpoint [64], events [64];
    snprintf (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", testutil_free_port ());
    snprintf (events, sizeof events, "tcp://127.0.0.1:%d", testutil_free_port ());
    for (size_t index = 0; index < sizeof cases / sizeof cases [0]; index++) {
        const char *argv [16] = { DROVER_BIN, "broker", "-e", endpoint, "-E", events,
                                  "--durability", "off" };
        for (size_t flag = 0; cases [index].flags [flag]; flag++)
            argv [8 + flag] = cases [index].flags [flag];
        char output [1024], errors [1024];
        int status = testutil_run_cli (argv, output, sizeof output, errors, sizeof errors,
                                       10000);
        if (status == -1 || !WIFEXITED (status) || WEXITSTATUS (status) != 2
        ||  !strstr (errors, cases [index].names [0]) || !strstr (errors, cases [index].names [1]))
            fail_msg ("case %zu: status %d, said '%s%s' (expected 2 naming %s and %s)", index,
                      status == -1? -1: WEXITSTATUS (status), output, errors,
                      cases [index].names [0], cases [index].names [1]);
    }
    const char *flags [] = { "--durability", "off", "--set", "store/history-count=5", NULL };
    testutil_cluster_t *cluster = testutil_cluster_new (flags);
    const char *log = testutil_cluster_log (cluster, "broker");
    if (!testutil_await_line (log, "settings that do nothing: broker/state-dir, "
                              "store/history-count need a kept state", 10000))
        fail_msg ("the broker did not say its idle settings; its log:\n%s", testutil_slurp (log));
    testutil_cluster_destroy (&cluster);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_defaults_are_documented_values),
        cmocka_unit_test (test_defaults_agree_with_header_and_docs),
        cmocka_unit_test (test_set_checks_range_and_names_key),
        cmocka_unit_test (test_load_file_applies_values),
        cmocka_unit_test (test_load_file_refuses_bad_value_and_unknown_key),
        cmocka_unit_test (test_printed_config_loads_back),
        cmocka_unit_test (test_endpoint_must_be_loopback_unless_insecure),
        cmocka_unit_test (test_pool_types_load_from_file),
        cmocka_unit_test (test_pool_refuses_bad_settings_naming_key),
        cmocka_unit_test (test_parse_size_takes_worker_suffixes),
        cmocka_unit_test (test_service_settings_load_and_check_range),
        cmocka_unit_test (test_settings_that_do_nothing_are_refused),
        cmocka_unit_test (test_settings_idle_with_durability_off_are_said),
        cmocka_unit_test (test_broker_refuses_settings_that_do_nothing),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
