/*  =========================================================================
    test_drover_devicelist - device counts as text and back: parsed sorted,
    written canonically, and every malformed entry refused with a reason
    =========================================================================
*/

#include "testcodec.h"
#include "drover_devicelist.h"

static void
test_devicelist_roundtrip (void **state)
{
    (void) state;
    drover_device_t devices [DROVER_DEVICES_MAX];
    const char *error = NULL;
    assert_int_equal (drover_devicelist_parse (" gpu=2 ,fpga=1", devices, &error), 2);
    assert_string_equal (devices [0].name, "fpga");
    assert_int_equal (devices [1].count, 2);
    char text [DROVER_DEVICELIST_TEXT_MAX];
    assert_string_equal (drover_devicelist_format (devices, 2, text), "fpga=1,gpu=2");
    assert_int_equal (drover_devicelist_count (devices, 2, "gpu"), 2);
    assert_int_equal (drover_devicelist_count (devices, 2, "tpu"), 0);
    assert_int_equal (drover_devicelist_parse ("", devices, &error), 0);
    assert_int_equal (drover_devicelist_parse (NULL, devices, &error), 0);
    assert_string_equal (drover_devicelist_format (devices, 0, text), "");
}

static void
test_devicelist_refusals (void **state)
{
    (void) state;
    drover_device_t devices [DROVER_DEVICES_MAX];
    const char *bad [] = { "gpu", "gpu=", "gpu=0", "gpu=x", "GPU=1", "gpu=1,gpu=2", "=1",
                           "gpu=1000001", "gpu=-1", "gpu=1,,", "a-b=1",
                           "abcdefghijabcdefghijabcdefghijabc=1" };
    for (size_t index = 0; index < sizeof bad / sizeof bad [0]; index++) {
        const char *error = NULL;
        assert_int_equal (drover_devicelist_parse (bad [index], devices, &error), -1);
        assert_non_null (error);
    }
    char many [1024] = "";
    for (int index = 0; index < DROVER_DEVICES_MAX + 1; index++)
        sprintf (many + strlen (many), "%sd%d=1", index? ",": "", index);
    assert_int_equal (drover_devicelist_parse (many, devices, NULL), -1);
    many [strrchr (many, ',') - many] = 0;
    assert_int_equal (drover_devicelist_parse (many, devices, NULL), DROVER_DEVICES_MAX);
}

int
main (void)
{
    const struct CMUnitTest tests [] = {
        cmocka_unit_test (test_devicelist_roundtrip),
        cmocka_unit_test (test_devicelist_refusals),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
