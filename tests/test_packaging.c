/*  =========================================================================
    test_packaging - the Debian package and the systemd units, as an
    operator gets them: `systemd-analyze verify` on each unit (a missing
    unit or an unknown directive fails); `cpack -G DEB` from this build
    tree into a scratch directory, then the package's fields (Depends from
    dpkg-shlibdeps), its files, its conffile and maintainer scripts (which
    start and enable nothing); its drover, extracted with `dpkg-deb -x`,
    run with --version and as the broker unit runs it (the package's
    settings file, the unit's flags, a clean stop on SIGTERM); the postinst
    making the drover user, for real when this machine is root and has no
    such user (removed after), else checked with `sh -n`; and, where
    systemd is PID 1, the broker unit started and stopped in a scratch
    configuration. Never `dpkg -i`.
    =========================================================================
*/

#include "testutil_proc.h"
#include <pwd.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define S_CPACK_TIMEOUT     540000  //  msec for cpack (its preinstall step may build the tree)
#define S_TOOL_TIMEOUT      60000   //  msec for dpkg-deb, systemd-analyze, a maintainer script

//  The files the package must hold: the units and settings of the package,
//  and what packaging/install.cmake installs (the libraries in the
//  directory this tree was configured with: lib, or Debian's multiarch
//  directory when configured with -DCMAKE_INSTALL_PREFIX=/usr)
static const char *s_package_files [] = {
    "./usr/bin/drover",
    "./usr/bin/drover-worker",
    "./usr/lib/systemd/system/drover-broker.service",
    "./usr/lib/systemd/system/drover-worker@.service",
    "./etc/drover/drover.cfg",
    "./usr/share/doc/drover/examples/worker-default.env",
    "./usr/share/doc/drover/copyright",
    "./usr/share/doc/drover/changelog.gz",
    "./usr/" DROVER_INSTALL_LIBDIR "/libdrover.so." DROVER_PACKAGE_VERSION,
    "./usr/" DROVER_INSTALL_LIBDIR "/libdrover.a",
    "./usr/" DROVER_INSTALL_LIBDIR "/pkgconfig/drover.pc",
    "./usr/include/drover/drover.h",
    "./usr/include/drover/drover_client.h",
    "./usr/share/man/man1/drover.1.gz",
    "./usr/share/man/man1/drover-broker.1.gz",
    "./usr/share/man/man1/drover-worker.1.gz",
    "./usr/share/bash-completion/completions/drover",
    "./usr/share/doc/drover/examples/drover.cfg",
    "./usr/share/doc/drover/examples/submit_wait.c",
    NULL
};

static const char *s_units [] = { "drover-broker.service", "drover-worker@.service", NULL };

static char s_scratch [PATH_MAX];   //  this run's directory, in the build tree
static char s_deb [PATH_MAX];       //  the package cpack made
static char s_root [PATH_MAX];      //  the package extracted
static char s_output [65536];       //  the last tool's stdout
static char s_errors [65536];       //  the last tool's stderr

//  snprintf that fails the test rather than cut a path short
static void
s_format (char *buffer, size_t size, const char *format, ...)
{
    va_list args;
    va_start (args, format);
    int length = vsnprintf (buffer, size, format, args);
    va_end (args);
    assert_true (length >= 0 && (size_t) length < size);
}

//  Run argv to its end, stdout and stderr into s_output and s_errors;
//  returns its exit status, or -1 if it did not exit in timeout msec
static int
s_run (const char *const argv [], int timeout)
{
    //  The kit execs argv [0] as a path: look a bare name up in PATH
    const char *resolved [32];
    char program [PATH_MAX] = "";
    size_t argc = 0;
    for (; argv [argc] && argc < 31; argc++)
        resolved [argc] = argv [argc];
    resolved [argc] = NULL;
    if (!strchr (argv [0], '/')) {
        char *path = strdup (getenv ("PATH")? getenv ("PATH"): "/usr/bin:/bin");
        for (char *dir = strtok (path, ":"); dir; dir = strtok (NULL, ":")) {
            s_format (program, sizeof program, "%s/%s", dir, argv [0]);
            if (access (program, X_OK) == 0)
                break;
            *program = 0;
        }
        free (path);
        if (!*program)
            fail_msg ("%s is not installed (in PATH)", argv [0]);
        resolved [0] = program;
    }
    int status = testutil_run_cli (resolved, s_output, sizeof s_output, s_errors,
                                   sizeof s_errors, timeout);
    if (status == -1)
        return -1;
    return WIFEXITED (status)? WEXITSTATUS (status): 128 + WTERMSIG (status);
}

//  Run argv and fail the test, showing both streams, unless it exits 0
static void
s_run_ok (const char *const argv [], int timeout)
{
    int status = s_run (argv, timeout);
    if (status != 0)
        fail_msg ("%s %s exited %d\nstdout:\n%s\nstderr:\n%s", argv [0], argv [1], status,
                  s_output, s_errors);
}

//  Path of name under dir, in a static buffer of 4 (enough for one call's arguments)
static const char *
s_path (const char *dir, const char *name)
{
    static char paths [4][PATH_MAX];
    static int next = 0;
    char *path = paths [next++ % 4];
    s_format (path, PATH_MAX, "%s/%s", dir, name);
    return path;
}

//  Write a copy of text to path with every `from` replaced by `to`
static void
s_write_replaced (const char *path, const char *text, const char *from, const char *to)
{
    FILE *file = fopen (path, "w");
    assert_non_null (file);
    const char *rest = text;
    const char *hit;
    while (*from && (hit = strstr (rest, from))) {
        fwrite (rest, 1, (size_t) (hit - rest), file);
        fputs (to, file);
        rest = hit + strlen (from);
    }
    fputs (rest, file);
    assert_int_equal (fclose (file), 0);
}

//  Build the package once for every test, into a scratch directory of the
//  build tree (not /tmp: a unit with PrivateTmp= must see it), and extract it
static int
s_setup (void **state)
{
    s_format (s_scratch, sizeof s_scratch, "%s/test_packaging.d/%d", DROVER_BINARY_DIR,
              (int) getpid ());
    testutil_remove_tree (s_scratch);
    char parent [PATH_MAX];
    s_format (parent, sizeof parent, "%s/test_packaging.d", DROVER_BINARY_DIR);
    mkdir (parent, 0755);
    assert_int_equal (mkdir (s_scratch, 0755), 0);

    const char *arch_argv [] = { "dpkg", "--print-architecture", NULL };
    s_run_ok (arch_argv, S_TOOL_TIMEOUT);
    s_output [strcspn (s_output, "\n")] = 0;
    s_format (s_deb, sizeof s_deb, "%s/drover_%s_%s.deb", s_scratch, DROVER_PACKAGE_VERSION,
              s_output);

    const char *cpack_argv [] = {
        "cpack", "-G", "DEB", "--config", s_path (DROVER_BINARY_DIR, "CPackConfig.cmake"),
        "-B", s_scratch, NULL
    };
    s_run_ok (cpack_argv, S_CPACK_TIMEOUT);
    if (access (s_deb, R_OK) != 0)
        fail_msg ("cpack made no %s\nstdout:\n%s", s_deb, s_output);

    s_format (s_root, sizeof s_root, "%s/root", s_scratch);
    const char *extract_argv [] = { "dpkg-deb", "-x", s_deb, s_root, NULL };
    s_run_ok (extract_argv, S_TOOL_TIMEOUT);
    return 0;
}

static int
s_teardown (void **state)
{
    testutil_remove_tree (s_scratch);
    return 0;
}

//  True if `systemd-analyze verify` passes on path without a word: it
//  exits 0 on an unknown directive, saying so on stderr
static bool
s_verify (const char *path)
{
    const char *argv [] = { "systemd-analyze", "verify", "--man=no", path, NULL };
    int status = s_run (argv, S_TOOL_TIMEOUT);
    if (status == 0 && !*s_errors && !*s_output)
        return true;
    fprintf (stderr, "verify %s: status %d\n%s%s", path, status, s_output, s_errors);
    return false;
}

//  Each unit in the source tree verifies, its binary replaced by this
//  build's (verify checks ExecStart= names an executable); a unit with an
//  unknown directive, and a missing one, do not
static void
test_units_verify (void **state)
{
    char dir [PATH_MAX];
    s_format (dir, sizeof dir, "%s/units", s_scratch);
    assert_int_equal (mkdir (dir, 0755), 0);
    for (int index = 0; s_units [index]; index++) {
        char source [PATH_MAX];
        s_format (source, sizeof source, "%s/packaging/systemd/%s", DROVER_SOURCE_DIR,
                  s_units [index]);
        char *text = testutil_slurp (source);
        if (!text)
            fail_msg ("no unit %s", source);
        assert_true (strstr (text, "ExecStart=/usr/bin/drover ")
                  || strstr (text, "ExecStart=/usr/bin/drover-worker "));
        const char *copy = s_path (dir, s_units [index]);
        s_write_replaced (copy, text, "/usr/bin/drover", DROVER_BIN);
        free (text);
        if (!s_verify (copy))
            fail_msg ("systemd-analyze verify fails on %s", s_units [index]);
    }
    //  The check itself catches what it is for
    const char *bad = s_path (dir, "drover-bad.service");
    s_write_replaced (bad, "[Service]\nExecStart=/bin/true\nNoSuchDirective=yes\n", "", "");
    assert_false (s_verify (bad));
    assert_false (s_verify (s_path (dir, "drover-missing.service")));
}

//  The control fields: the name, this release, and the libraries the
//  binary links as dependencies (dpkg-shlibdeps), adduser for the postinst
static void
test_package_fields (void **state)
{
    const char *argv [] = { "dpkg-deb", "-f", s_deb, "Package", "Version", "Depends", NULL };
    s_run_ok (argv, S_TOOL_TIMEOUT);
    if (!strstr (s_output, "Package: drover\n")
    ||  !strstr (s_output, "Version: " DROVER_PACKAGE_VERSION "\n")
    ||  !strstr (s_output, "libczmq4")
    ||  !strstr (s_output, "libzmq5")
    ||  !strstr (s_output, "libc6")
    ||  !strstr (s_output, "adduser"))
        fail_msg ("unexpected fields:\n%s", s_output);
    const char *section_argv [] = { "dpkg-deb", "-f", s_deb, "Section", "Maintainer", NULL };
    s_run_ok (section_argv, S_TOOL_TIMEOUT);
    assert_non_null (strstr (s_output, "Section: admin"));
    assert_non_null (strstr (s_output, "Maintainer: "));
}

//  Every expected path is in the package, each owned by root
static void
test_package_contents (void **state)
{
    const char *argv [] = { "dpkg-deb", "-c", s_deb, NULL };
    s_run_ok (argv, S_TOOL_TIMEOUT);
    for (int index = 0; s_package_files [index]; index++) {
        char needle [PATH_MAX];
        s_format (needle, sizeof needle, " %s\n", s_package_files [index]);
        if (!strstr (s_output, needle))
            fail_msg ("%s not in the package:\n%s", s_package_files [index], s_output);
    }
    char *line = s_output;
    while (*line) {
        char *end = strchr (line, '\n');
        if (!end)
            break;
        *end = 0;
        if (!strstr (line, " root/root "))
            fail_msg ("not owned by root: %s", line);
        line = end + 1;
    }
}

//  True if a line of the shell script text, outside comments, names word
static bool
s_script_says (const char *text, const char *word)
{
    char *copy = strdup (text);
    bool found = false;
    for (char *line = strtok (copy, "\n"); line && !found; line = strtok (NULL, "\n")) {
        char *comment = strchr (line, '#');
        if (comment)
            *comment = 0;
        found = strstr (line, word) != NULL;
    }
    free (copy);
    return found;
}

//  Debian's own checker finds no error in the package (its warnings are
//  printed: the known ones are in docs/install.md)
static void
test_package_lintian (void **state)
{
    const char *argv [] = { "lintian", "--allow-root", "--no-tag-display-limit", s_deb, NULL };
    int status = s_run (argv, S_CPACK_TIMEOUT);
    printf ("lintian (exit %d):\n%s%s", status, s_output, s_errors);
    assert_null (strstr (s_output, "E: "));
    assert_true (status == 0 || status == 1);      //  1: it printed warnings
}

//  The conffile is listed; the maintainer scripts parse and none of them
//  starts, restarts or enables a unit
static void
test_package_control (void **state)
{
    const char *argv [] = { "dpkg-deb", "-I", s_deb, "conffiles", NULL };
    s_run_ok (argv, S_TOOL_TIMEOUT);
    assert_string_equal (s_output, "/etc/drover/drover.cfg\n");

    char control [PATH_MAX];
    s_format (control, sizeof control, "%s/control", s_scratch);
    const char *extract_argv [] = { "dpkg-deb", "-e", s_deb, control, NULL };
    s_run_ok (extract_argv, S_TOOL_TIMEOUT);
    const char *scripts [] = { "postinst", "prerm", "postrm", NULL };
    const char *forbidden [] = { "start", "enable", "--now", NULL };
    for (int index = 0; scripts [index]; index++) {
        const char *path = s_path (control, scripts [index]);
        struct stat info;
        assert_int_equal (stat (path, &info), 0);
        assert_int_equal (info.st_mode & 0777, 0755);
        const char *check_argv [] = { "sh", "-n", path, NULL };
        s_run_ok (check_argv, S_TOOL_TIMEOUT);
        char *text = testutil_slurp (path);
        assert_non_null (text);
        for (int word = 0; forbidden [word]; word++)
            if (s_script_says (text, forbidden [word]))
                fail_msg ("%s says '%s'", scripts [index], forbidden [word]);
        free (text);
    }
    //  and the check sees a start
    assert_true (s_script_says ("set -e\nsystemctl start drover-broker  # no\n", "start"));
    assert_false (s_script_says ("#  nothing is started\n", "start"));
}

//  The extracted drover runs and is this build's; its settings file is
//  every setting `drover broker --print-config` prints
static void
test_extracted_drover (void **state)
{
    const char *build_argv [] = { DROVER_BIN, "--version", NULL };
    s_run_ok (build_argv, S_TOOL_TIMEOUT);
    char version [256];
    s_format (version, sizeof version, "%s", s_output);

    const char *drover = s_path (s_root, "usr/bin/drover");
    const char *argv [] = { drover, "--version", NULL };
    s_run_ok (argv, S_TOOL_TIMEOUT);
    assert_true (strncmp (s_output, "drover ", 7) == 0);
    assert_string_equal (s_output, version);
    assert_non_null (strstr (s_output, "drover " DROVER_PACKAGE_VERSION " "));
    printf ("packaged drover --version: %s", s_output);

    const char *print_argv [] = { drover, "broker", "--print-config", NULL };
    s_run_ok (print_argv, S_TOOL_TIMEOUT);
    char *settings = testutil_slurp (s_path (s_root, "etc/drover/drover.cfg"));
    assert_non_null (settings);
    assert_true (strlen (s_output) > 1000);
    assert_non_null (strstr (settings, s_output));
    free (settings);
}

//  The broker as the unit starts it: the packaged binary, the unit's
//  flags with the package's settings file, on loopback ports of its own;
//  ready, then SIGTERM (the unit's KillSignal) is a clean stop, exit 0
static void
test_broker_as_the_unit_runs_it (void **state)
{
    char *unit = testutil_slurp (s_path (s_root, "usr/lib/systemd/system/drover-broker.service"));
    assert_non_null (unit);
    const char *flags = "ExecStart=/usr/bin/drover broker -c /etc/drover/drover.cfg "
                        "--state-dir /var/lib/drover\n";
    if (!strstr (unit, flags))
        fail_msg ("the unit's ExecStart is not '%s'", flags);
    assert_non_null (strstr (unit, "KillSignal=SIGTERM"));
    free (unit);

    char state_dir [PATH_MAX];
    s_format (state_dir, sizeof state_dir, "%s/state", s_scratch);
    char log [PATH_MAX];
    s_format (log, sizeof log, "%s/broker.log", s_scratch);
    for (int tries = 0; ; tries++) {
        assert_true (tries < 5);
        int port = testutil_free_port_pair ();
        char endpoint [64], events [64];
        s_format (endpoint, sizeof endpoint, "tcp://127.0.0.1:%d", port);
        s_format (events, sizeof events, "tcp://127.0.0.1:%d", port + 1);
        const char *argv [] = {
            s_path (s_root, "usr/bin/drover"), "broker",
            "-c", s_path (s_root, "etc/drover/drover.cfg"), "--state-dir", state_dir,
            "--endpoint", endpoint, "--events", events, NULL
        };
        unlink (log);
        pid_t broker = testutil_spawn (argv, log);
        assert_true (broker > 0);
        bool ready = false;
        int64_t deadline = zclock_mono () + 10000;
        while (!ready && zclock_mono () < deadline) {
            if (testutil_await_line (log, "broker: ready", 100))
                ready = true;
            else
            if (waitpid (broker, NULL, WNOHANG) == broker)
                break;              //  a port taken meanwhile: other ports
        }
        if (!ready) {
            testutil_stop (broker, 1000);
            char *text = testutil_slurp (log);
            bool port_taken = text && strstr (text, "ddress already in use");
            if (!port_taken)
                fail_msg ("the packaged broker did not get ready:\n%s", text? text: "");
            free (text);
            continue;
        }
        kill (broker, SIGTERM);
        int status = testutil_wait_exit (broker, 10000);
        if (status == -1)
            testutil_stop (broker, 100);
        assert_true (status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0);
        break;
    }
    assert_int_equal (access (s_path (state_dir, "state.db"), F_OK), 0);
}

//  Run the package's postinst as dpkg would after unpacking
static void
s_postinst_configure (const char *postinst)
{
    const char *argv [] = { "sh", postinst, "configure", NULL };
    s_run_ok (argv, S_TOOL_TIMEOUT);
}

//  The postinst makes the system user and group drover (home
//  /var/lib/drover, no login) and may run again; for real only as root
//  on a machine without that user, which the test then removes
static void
test_postinst_makes_the_user (void **state)
{
    const char *postinst = s_path (s_scratch, "postinst.sh");
    char *text = testutil_slurp (s_path (DROVER_SOURCE_DIR, "packaging/debian/postinst"));
    assert_non_null (text);
    s_write_replaced (postinst, text, "", "");
    free (text);
    const char *check_argv [] = { "sh", "-n", postinst, NULL };
    s_run_ok (check_argv, S_TOOL_TIMEOUT);
    if (geteuid () != 0 || getpwnam ("drover") || getgrnam ("drover")) {
        printf ("postinst: checked with sh -n only (%s)\n",
                geteuid () != 0? "not root": "a user or group drover exists already");
        return;
    }
    s_postinst_configure (postinst);
    struct passwd *user = getpwnam ("drover");
    bool made = user
             && streq (user->pw_dir, "/var/lib/drover")
             && streq (user->pw_shell, "/usr/sbin/nologin")
             && user->pw_uid < 1000
             && getgrnam ("drover")
             && getgrnam ("drover")->gr_gid == user->pw_gid;
    //  A second run (dpkg-reconfigure, an upgrade) changes nothing and succeeds
    const char *argv [] = { "sh", postinst, "configure", NULL };
    int again = s_run (argv, S_TOOL_TIMEOUT);
    const char *userdel_argv [] = { "userdel", "drover", NULL };
    s_run (userdel_argv, S_TOOL_TIMEOUT);
    if (getgrnam ("drover")) {
        const char *groupdel_argv [] = { "groupdel", "drover", NULL };
        s_run (groupdel_argv, S_TOOL_TIMEOUT);
    }
    assert_true (made);
    assert_int_equal (again, 0);
    assert_null (getpwnam ("drover"));
    assert_null (getgrnam ("drover"));
    printf ("postinst: made the user drover and ran again; removed it\n");
}

//  With systemd as PID 1, the packaged broker unit starts in a scratch
//  configuration (its own name, state directory and ports, a dynamic user)
//  and stops cleanly; otherwise say so (this part only)
static void
test_broker_unit_under_systemd (void **state)
{
    //  (/proc files say size 0: read a line, not the whole file)
    char init [64] = "?";
    FILE *comm = fopen ("/proc/1/comm", "r");
    if (comm) {
        if (!fgets (init, sizeof init, comm))
            s_format (init, sizeof init, "?");
        fclose (comm);
    }
    init [strcspn (init, "\n")] = 0;
    if (!streq (init, "systemd") || access ("/run/systemd/system", F_OK) != 0) {
        printf ("systemd is not PID 1 (PID 1 is %s): the broker unit was not started; "
                "its command ran as a process instead (test_broker_as_the_unit_runs_it)\n",
                init);
        return;
    }
    char name [64];
    s_format (name, sizeof name, "drover-broker-test-%d.service", (int) getpid ());
    int port = testutil_free_port_pair ();
    char exec [PATH_MAX * 2];
    s_format (exec, sizeof exec,
              "ExecStart=%s broker -c %s --state-dir /var/lib/drover-test-%d "
              "--endpoint tcp://127.0.0.1:%d --events tcp://127.0.0.1:%d\n"
              "StateDirectory=drover-test-%d\nDynamicUser=yes\n",
              s_path (s_root, "usr/bin/drover"), s_path (s_root, "etc/drover/drover.cfg"),
              (int) getpid (), port, port + 1, (int) getpid ());
    char *unit = testutil_slurp (s_path (s_root, "usr/lib/systemd/system/drover-broker.service"));
    assert_non_null (unit);
    //  The unit's own lines, with the command and the state replaced
    char *scratch_unit = (char *) zmalloc (strlen (unit) + sizeof exec);
    char *out = scratch_unit;
    for (char *line = strtok (unit, "\n"); line; line = strtok (NULL, "\n")) {
        if (strncmp (line, "ExecStart=", 10) == 0)
            out += sprintf (out, "%s", exec);
        else
        if (strncmp (line, "StateDirectory=", 15) != 0 && strncmp (line, "User=", 5) != 0
        &&  strncmp (line, "Group=", 6) != 0 && strncmp (line, "WorkingDirectory=", 17) != 0)
            out += sprintf (out, "%s\n", line);
    }
    free (unit);
    const char *path = s_path ("/run/systemd/system", name);
    s_write_replaced (path, scratch_unit, "", "");
    free (scratch_unit);
    const char *reload_argv [] = { "systemctl", "daemon-reload", NULL };
    s_run_ok (reload_argv, S_TOOL_TIMEOUT);
    const char *start_argv [] = { "systemctl", "start", name, NULL };
    int started = s_run (start_argv, S_TOOL_TIMEOUT);
    bool ready = false;
    int64_t deadline = zclock_mono () + 10000;
    while (started == 0 && !ready && zclock_mono () < deadline) {
        const char *journal_argv [] = { "journalctl", "-u", name, "-o", "cat", "--no-pager", NULL };
        ready = s_run (journal_argv, S_TOOL_TIMEOUT) == 0 && strstr (s_output, "broker: ready");
        if (!ready)
            zclock_sleep (100);     //  paces the journal reads; the deadline bounds the wait
    }
    const char *stop_argv [] = { "systemctl", "stop", name, NULL };
    int stopped = s_run (stop_argv, S_TOOL_TIMEOUT);
    const char *show_argv [] = { "systemctl", "show", "-p", "Result", "-p", "ExecMainStatus",
                                 name, NULL };
    s_run (show_argv, S_TOOL_TIMEOUT);
    char shown [256];
    s_format (shown, sizeof shown, "%s", s_output);
    unlink (path);
    s_run (reload_argv, S_TOOL_TIMEOUT);
    assert_int_equal (started, 0);
    assert_true (ready);
    assert_int_equal (stopped, 0);
    if (!strstr (shown, "Result=success") || !strstr (shown, "ExecMainStatus=0"))
        fail_msg ("the broker unit did not stop cleanly: %s", shown);
    printf ("systemd: %s started and stopped cleanly\n", name);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_units_verify),
        cmocka_unit_test (test_package_fields),
        cmocka_unit_test (test_package_contents),
        cmocka_unit_test (test_package_control),
        cmocka_unit_test (test_package_lintian),
        cmocka_unit_test (test_extracted_drover),
        cmocka_unit_test (test_broker_as_the_unit_runs_it),
        cmocka_unit_test (test_postinst_makes_the_user),
        cmocka_unit_test (test_broker_unit_under_systemd),
    };
    return cmocka_run_group_tests (tests, s_setup, s_teardown);
}
