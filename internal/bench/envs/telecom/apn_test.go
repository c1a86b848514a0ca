package telecom

import (
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// TestParseAPN: set_apn_settings' validation of its argument agrees with
// upstream's APNSettings(**d) under pydantic (the expected dumps and error
// texts were printed by pydantic 2 running upstream's class definitions,
// the errors URL normalised to upstream's pinned 2.12).
func TestParseAPN(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, dump, err string }{
		{"{\"apn_name\": \"internet\", \"mmsc_url\": \"http://x\", \"mms_port\": 8080}", "{\"apn_name\": \"internet\", \"reset_at_reboot\": false, \"mms_apn\": \"mms\", \"mmsc_url\": \"http://x\", \"mms_proxy\": null, \"mms_port\": 8080}", ""},
		{"{\"apn_name\": \"INTERNET\"}", "", "1 validation error for APNSettings\napn_name\n  Input should be 'internet' or 'broken' [type=enum, input_value='INTERNET', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.12/v/enum"},
		{"{\"reset_at_reboot\": \" yes \"}", "", "1 validation error for APNSettings\nreset_at_reboot\n  Input should be a valid boolean, unable to interpret input [type=bool_parsing, input_value=' yes ', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.12/v/bool_parsing"},
		{"{\"reset_at_reboot\": 2}", "", "1 validation error for APNSettings\nreset_at_reboot\n  Input should be a valid boolean, unable to interpret input [type=bool_parsing, input_value=2, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.12/v/bool_parsing"},
		{"{\"mms_port\": \"80\"}", "{\"apn_name\": \"internet\", \"reset_at_reboot\": false, \"mms_apn\": \"mms\", \"mmsc_url\": \"http://mms.carrier.com/mms/wapenc\", \"mms_proxy\": null, \"mms_port\": 80}", ""},
		{"{\"mms_port\": \"eighty\"}", "", "1 validation error for APNSettings\nmms_port\n  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='eighty', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.12/v/int_parsing"},
		{"{\"mms_port\": 80.5}", "", "1 validation error for APNSettings\nmms_port\n  Input should be a valid integer, got a number with a fractional part [type=int_from_float, input_value=80.5, input_type=float]\n    For further information visit https://errors.pydantic.dev/2.12/v/int_from_float"},
		{"{\"mms_apn\": 5, \"apn_name\": \"x\"}", "", "2 validation errors for APNSettings\napn_name\n  Input should be 'internet' or 'broken' [type=enum, input_value='x', input_type=str]\n    For further information visit https://errors.pydantic.dev/2.12/v/enum\nmms_apn\n  Input should be a valid string [type=string_type, input_value=5, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.12/v/string_type"},
		{"{\"mms_proxy\": null, \"extra\": 1, \"apn_name\": \"broken\"}", "", "1 validation error for APNSettings\nextra\n  Extra inputs are not permitted [type=extra_forbidden, input_value=1, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.12/v/extra_forbidden"},
		{"{\"mmsc_url\": \"a very long string that goes on and on and on for more than fifty characters\", \"mms_port\": []}", "", "1 validation error for APNSettings\nmms_port\n  Input should be a valid integer [type=int_type, input_value=[], input_type=list]\n    For further information visit https://errors.pydantic.dev/2.12/v/int_type"},
	} {
		v, err := pyjson.Decode([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		s, junk, err := parseAPN(v)
		if junk != nil {
			t.Fatalf("%s: junk %v", tc.in, junk.v)
		}
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: error\n%v\nwant\n%s", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
		} else if got := pyjson.String(s); got != tc.dump {
			t.Errorf("%s: %s; want %s", tc.in, got, tc.dump)
		}
	}
}
