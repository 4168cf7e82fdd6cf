/*  =========================================================================
    drover_cli_keygen - `drover keygen NAME`: write a CURVE key pair

    A key pair is two czmq zcert files: DIR/NAME.key (the public key and
    metadata, mode 0644: hand it to the broker's operator) and
    DIR/NAME.key_secret (the public and the secret key, mode 0600: stays
    with whoever speaks as NAME). The metadata says `name = NAME` and, with
    --worker-ids, `worker-ids = "a,b"`: the worker ids a worker's key may
    register as (the broker reads it from the public file).

    Each file is created here with O_EXCL and its final mode before czmq
    writes into it, under a umask of 077 for the secret: the secret key is
    never, even for a moment, in a file others may read, and an existing
    key is never overwritten unless --force removes it first.
    =========================================================================
*/

#include "drover_cli.h"
#include <fcntl.h>
#include <sys/stat.h>

#define S_NAME_MAX      64      //  bytes in a key's name
#define S_PUBLIC_MODE   0644    //  NAME.key
#define S_SECRET_MODE   0600    //  NAME.key_secret

//  Print keygen's usage
static void
s_keygen_usage (FILE *stream)
{
    fprintf (stream,
        "usage: drover keygen NAME [--dir DIR] [--worker-ids ID[,ID...]] [--force] [--json]\n"
        "\n"
        "Write a CURVE key pair: DIR/NAME.key, the public key (mode 0644: give it to the\n"
        "broker's operator, who puts it in the workers, clients or admins directory),\n"
        "and DIR/NAME.key_secret, the secret key (mode 0600: keep it; --key takes\n"
        "either file's path). Prints the files and the public key (Z85).\n"
        "  NAME                 the key's name, what the broker calls its holder: 1..64\n"
        "                       printable bytes, no '/', not starting with '.'\n"
        "  --dir DIR            where to write (default: the current directory; made\n"
        "                       if missing, mode 0700)\n"
        "  --worker-ids IDS     the worker ids this (worker) key may register as,\n"
        "                       comma-separated; kept in the public file's metadata\n"
        "  --force              replace an existing key pair of that name\n"
        "  --json               print one JSON object instead\n");
}

//  Is name a usable key name: printable, no '/', no leading '.', 1..64 bytes?
static bool
s_name_valid (const char *name)
{
    size_t length = strlen (name);
    if (length == 0 || length > S_NAME_MAX || name [0] == '.')
        return false;
    for (const char *cursor = name; *cursor; cursor++)
        if (*cursor < ' ' || *cursor > '~' || *cursor == '/')
            return false;
    return true;
}

//  Are ids worker ids separated by single commas?
static bool
s_worker_ids_valid (const char *ids)
{
    char *copy = strdup (ids);
    bool valid = *copy && copy [strlen (copy) - 1] != ',';
    char *state = NULL;
    for (char *id = strtok_r (copy, ",", &state); valid && id; id = strtok_r (NULL, ",", &state))
        if (!drover_id_valid (id))
            valid = false;
    if (strstr (ids, ",,") || ids [0] == ',')
        valid = false;
    free (copy);
    return valid;
}

//  Make dir and its missing parents, mode 0700. Returns 0 or -1 (errno set).
static int
s_make_dir (const char *dir)
{
    char *path = strdup (dir);
    int rc = 0;
    for (char *slash = path + 1; rc == 0; slash++) {
        if (*slash != '/' && *slash)
            continue;
        char saved = *slash;
        *slash = 0;
        if (mkdir (path, 0700) == -1 && errno != EEXIST)
            rc = -1;
        *slash = saved;
        if (!saved)
            break;
    }
    free (path);
    struct stat status;
    if (rc == 0 && (stat (dir, &status) == -1 || !S_ISDIR (status.st_mode))) {
        if (errno == 0 || rc == 0)
            errno = ENOTDIR;
        rc = -1;
    }
    return rc;
}

//  Create path afresh (it must not exist) with mode, empty. Returns 0 or -1.
static int
s_create (const char *path, mode_t mode)
{
    int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd == -1)
        return -1;
    int rc = fchmod (fd, mode);         //  whatever the umask took away
    close (fd);
    return rc;
}

//  Print what was written, for people or as JSON
static void
s_report (bool json, const char *name, const char *public_path, const char *secret_path,
          const char *public_key, const char *worker_ids)
{
    if (json) {
        printf ("{\"name\": ");
        drover_cli_json_string (stdout, name);
        printf (", \"public_key_file\": ");
        drover_cli_json_string (stdout, public_path);
        printf (", \"secret_key_file\": ");
        drover_cli_json_string (stdout, secret_path);
        printf (", \"public_key\": ");
        drover_cli_json_string (stdout, public_key);
        printf (", \"worker_ids\": [");
        if (worker_ids) {
            char *copy = strdup (worker_ids);
            char *state = NULL;
            int count = 0;
            for (char *id = strtok_r (copy, ",", &state); id; id = strtok_r (NULL, ",", &state)) {
                printf ("%s", count++? ", ": "");
                drover_cli_json_string (stdout, id);
            }
            free (copy);
        }
        printf ("]}\n");
        return;
    }
    printf ("wrote %s (public key, mode 0644)\n", public_path);
    printf ("wrote %s (secret key, mode 0600: keep it to yourself)\n", secret_path);
    if (worker_ids)
        printf ("worker ids: %s\n", worker_ids);
    printf ("public key: %s\n", public_key);
}

//  drover keygen NAME [--dir DIR] [--worker-ids IDS] [--force] [--json]
int
drover_cli_keygen (int argc, char **argv)
{
    static struct option long_options [] = {
        { "dir", required_argument, NULL, 'd' },
        { "worker-ids", required_argument, NULL, 'w' },
        { "force", no_argument, NULL, 'f' },
        { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    const char *dir = ".";
    const char *worker_ids = NULL;
    bool force = false;
    bool json = false;
    optind = 0;
    opterr = 0;
    int option;
    while ((option = getopt_long (argc, argv, ":h", long_options, NULL)) != -1) {
        if (option == 'h') {
            s_keygen_usage (stdout);
            return DROVER_EXIT_OK;
        }
        else
        if (option == 'd')
            dir = optarg;
        else
        if (option == 'w')
            worker_ids = optarg;
        else
        if (option == 'f')
            force = true;
        else
        if (option == 'j')
            json = true;
        else
        if (option == ':')
            return drover_cli_usage_error ("keygen", "option '%s' needs a value",
                                           argv [optind - 1]);
        else
            return drover_cli_usage_error ("keygen", "unknown option '%s' (see drover keygen "
                                           "--help)", argv [optind - 1]);
    }
    if (optind >= argc)
        return drover_cli_usage_error ("keygen", "give the key's NAME (see drover keygen --help)");
    const char *name = argv [optind++];
    if (optind < argc)
        return drover_cli_usage_error ("keygen", "unexpected argument '%s'", argv [optind]);
    if (!s_name_valid (name))
        return drover_cli_usage_error ("keygen", "'%.80s' is not a key name (1..%d printable "
                                       "bytes, no '/', not starting with '.')", name, S_NAME_MAX);
    if (!*dir)
        return drover_cli_usage_error ("keygen", "--dir: give a directory");
    if (worker_ids && !s_worker_ids_valid (worker_ids))
        return drover_cli_usage_error ("keygen", "--worker-ids: '%.200s' is not a comma-separated "
                                       "list of worker ids (printable, no spaces, 1..64 bytes)",
                                       worker_ids);
    if (s_make_dir (dir) == -1) {
        fprintf (stderr, "drover keygen: --dir %s: %s\n", dir, strerror (errno));
        return DROVER_EXIT_FAILED;
    }
    char *public_path = zsys_sprintf ("%s/%s.key", dir, name);
    char *secret_path = zsys_sprintf ("%s/%s.key_secret", dir, name);
    int status = DROVER_EXIT_OK;
    const char *failed = NULL;          //  the file that could not be written
    if (force) {
        if (unlink (secret_path) == -1 && errno != ENOENT)
            failed = secret_path;
        else
        if (unlink (public_path) == -1 && errno != ENOENT)
            failed = public_path;
    }
    else {
        struct stat status_of;
        const char *existing = lstat (public_path, &status_of) == 0? public_path
                             : lstat (secret_path, &status_of) == 0? secret_path: NULL;
        if (existing) {
            fprintf (stderr, "drover keygen: %s exists; not overwriting it (--force replaces "
                     "the key pair)\n", existing);
            free (public_path);
            free (secret_path);
            return DROVER_EXIT_FAILED;
        }
    }
    //  Both files exist, empty, with their final modes before czmq writes
    //  either (it truncates and writes, keeping the mode); the umask covers
    //  a czmq that would write a new file instead
    mode_t umask_was = umask (077);
    bool created_secret = false;        //  ours to remove if the rest fails
    bool created_public = false;
    if (!failed && !(created_secret = s_create (secret_path, S_SECRET_MODE) == 0))
        failed = secret_path;
    if (!failed && !(created_public = s_create (public_path, S_PUBLIC_MODE) == 0))
        failed = public_path;
    zcert_t *cert = zcert_new ();
    assert (cert);
    zcert_set_meta (cert, "name", "%s", name);
    if (worker_ids)
        zcert_set_meta (cert, "worker-ids", "%s", worker_ids);
    if (!failed && zcert_save_secret (cert, secret_path) == -1)
        failed = secret_path;
    umask (umask_was);
    if (!failed && zcert_save_public (cert, public_path) == -1)
        failed = public_path;
    //  czmq's save may have left a umask of its own: put the caller's back
    umask (umask_was);
    if (!failed && (chmod (public_path, S_PUBLIC_MODE) == -1
                ||  chmod (secret_path, S_SECRET_MODE) == -1))
        failed = public_path;
    if (failed) {
        fprintf (stderr, "drover keygen: cannot write %s: %s\n", failed,
                 errno? strerror (errno): "write failed");
        if (created_secret)
            unlink (secret_path);       //  no half-written pair left behind
        if (created_public)
            unlink (public_path);
        status = DROVER_EXIT_FAILED;
    }
    else
        s_report (json, name, public_path, secret_path, zcert_public_txt (cert), worker_ids);
    zcert_destroy (&cert);
    free (public_path);
    free (secret_path);
    return status;
}
