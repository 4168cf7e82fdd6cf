/*  =========================================================================
    testutil - what every piece of the test kit and every test include
    first: czmq, then cmocka (which needs stdarg, stddef and setjmp before
    it), and the one assertion every kind of test uses

    The kit is in pieces, each linked only into the tests that include its
    header (tests/CMakeLists.txt): testutil_proc (processes, ports, files),
    testutil_wire (the codec on a socket), testutil_cluster (a broker and
    workers on loopback, the CLI), testutil_actor (playing the main to an
    actor), testutil_class (a class driven without its actor),
    testutil_servers (etcd, PostgreSQL), testutil_ha (several brokers),
    testutil_keys, testutil_pool, testutil_backend and testcodec.
    =========================================================================
*/

#ifndef TESTUTIL_H_INCLUDED
#define TESTUTIL_H_INCLUDED

#include <czmq.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

//  Assert that a string handed to us (ours to free) is there and equals
//  expected, then free it: for what a class's method returns to its caller
static inline void
testutil_assert_and_free (char *string, const char *expected)
{
    assert_non_null (string);
    assert_string_equal (string, expected);
    zstr_free (&string);
}

#endif
