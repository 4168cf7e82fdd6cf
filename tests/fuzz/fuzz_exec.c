/*  =========================================================================
    fuzz_exec - libFuzzer target for the exec body decoder

    Feeds any bytes to drover_exec_decode and drover_exec_validate, as the
    broker (validate, on every SUBMIT) and the worker (decode, on every
    OFFER) do. Checks: both agree, with the same reason; an accepted body
    encodes again, and that encoding decodes to itself (a fixed point);
    argv and env are NULL-terminated with the counts the decoder says.
    =========================================================================
*/

#include "drover_msg.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    drover_exec_t *exec = drover_exec_new ();
    const char *error = NULL, *checked = NULL;
    int rc = drover_exec_decode (exec, data, size, &error);
    int valid = drover_exec_validate (data, size, &checked);
    assert (rc == 0 || rc == -2);
    assert (rc == valid && error == checked);
    if (rc == -2)
        assert (error && exec->argc == 0 && !exec->argv && !exec->env && !exec->cwd);
    else {
        assert (exec->argc >= 1 && exec->argv && !exec->argv [exec->argc]);
        assert (exec->nenv == 0 || !exec->env [exec->nenv]);
        size_t encoded_size;
        byte *encoded = drover_exec_encode (exec, &encoded_size);
        assert (encoded);           //  what decodes, encodes
        drover_exec_t *again = drover_exec_new ();
        rc = drover_exec_decode (again, encoded, encoded_size, &error);
        assert (rc == 0);
        size_t twice_size;
        byte *twice = drover_exec_encode (again, &twice_size);
        assert (twice && twice_size == encoded_size && memcmp (twice, encoded, twice_size) == 0);
        free (twice);
        free (encoded);
        drover_exec_destroy (&again);
    }
    drover_exec_destroy (&exec);
    return 0;
}
