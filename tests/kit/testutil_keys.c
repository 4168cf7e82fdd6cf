/*  =========================================================================
    testutil_keys - CURVE key pairs for a test (see the header)
    =========================================================================
*/

#include "testutil_keys.h"
#include "testutil_proc.h"
#include <sys/stat.h>
#include <sys/wait.h>

//  Run the real `drover keygen`
void
testutil_keygen (const char *dir, const char *name)
{
    testutil_keygen_worker (dir, name, NULL);
}

//  Run the real `drover keygen --worker-ids`
void
testutil_keygen_worker (const char *dir, const char *name, const char *worker_ids)
{
    const char *argv [] = { DROVER_BIN, "keygen", name, "--dir", dir,
                            worker_ids? "--worker-ids": NULL, worker_ids, NULL };
    char output [1024];
    int status = testutil_run_output (argv, output, sizeof output, 10000);
    if (!(status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0))
        fail_msg ("drover keygen %s --dir %s failed: status %d, output: %s", name, dir,
                  status, output);
}

//  A new CURVE key pair saved at path, its secret half mode 0600
zcert_t *
testutil_save_key_pair (const char *path)
{
    zcert_t *pair = zcert_new ();
    assert_int_equal (zcert_save (pair, path), 0);
    char *secret = zsys_sprintf ("%s_secret", path);
    assert_int_equal (chmod (secret, 0600), 0);
    zstr_free (&secret);
    return pair;
}
