package telehealth

import "testing"

// Expectations printed by CPython 3.11's datetime.strptime.
func TestStrptime(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, format, want string }{
		{"2025-09-23", dateFormat, "2025-09-23 00:00 Tuesday"},
		{"2025-9-3", dateFormat, "2025-09-03 00:00 Wednesday"},
		{"2025-9- 3", dateFormat, "2025-09-03 00:00 Wednesday"},
		{"2025-09-31", dateFormat, "ValueError: day is out of range for month"},
		{"2024-02-29", dateFormat, "2024-02-29 00:00 Thursday"},
		{"2023-02-29", dateFormat, "ValueError: day is out of range for month"},
		{"0000-01-01", dateFormat, "ValueError: year 0 is out of range"},
		{"0001-01-01", dateFormat, "0001-01-01 00:00 Monday"},
		{"9999-12-31", dateFormat, "9999-12-31 00:00 Friday"},
		{"2025-13-01", dateFormat, "ValueError: time data '2025-13-01' does not match format '%Y-%m-%d'"},
		{"2025-1-011", dateFormat, "ValueError: unconverted data remains: 1"},
		{"2025-01-1x", dateFormat, "ValueError: unconverted data remains: x"},
		{" 2025-01-01", dateFormat, "ValueError: time data ' 2025-01-01' does not match format '%Y-%m-%d'"},
		{"2025-01-01 ", dateFormat, "ValueError: unconverted data remains:  "},
		{"20250101", dateFormat, "ValueError: time data '20250101' does not match format '%Y-%m-%d'"},
		{"2025/01/01", dateFormat, "ValueError: time data '2025/01/01' does not match format '%Y-%m-%d'"},
		{"25-01-01", dateFormat, "ValueError: time data '25-01-01' does not match format '%Y-%m-%d'"},
		{"2025-00-10", dateFormat, "ValueError: time data '2025-00-10' does not match format '%Y-%m-%d'"},
		{"2025-10-00", dateFormat, "ValueError: time data '2025-10-00' does not match format '%Y-%m-%d'"},
		{"2025-1-32", dateFormat, "ValueError: unconverted data remains: 2"},
		{"2025-12-3", dateFormat, "2025-12-03 00:00 Wednesday"},
		{"2025-09-23 10:00", dateTimeFormat, "2025-09-23 10:00 Tuesday"},
		{"2025-09-23 9:05", dateTimeFormat, "2025-09-23 09:05 Tuesday"},
		{"2025-09-23  \t10:00", dateTimeFormat, "2025-09-23 10:00 Tuesday"},
		{"2025-09-2310:00", dateTimeFormat, "ValueError: time data '2025-09-2310:00' does not match format '%Y-%m-%d %H:%M'"},
		{"2025-09-23 24:00", dateTimeFormat, "ValueError: time data '2025-09-23 24:00' does not match format '%Y-%m-%d %H:%M'"},
		{"2025-09-23 23:60", dateTimeFormat, "ValueError: unconverted data remains: 0"},
		{"2025-09-23 1:2", dateTimeFormat, "2025-09-23 01:02 Tuesday"},
		{"2025-09-23 10:00 AM", dateTimeFormat, "ValueError: unconverted data remains:  AM"},
		{"2025-9- 3 07:30", dateTimeFormat, "2025-09-03 07:30 Wednesday"},
		{"2025-09-23 10:0", dateTimeFormat, "2025-09-23 10:00 Tuesday"},
		{"2025-09-23\u200310:00", dateTimeFormat, "2025-09-23 10:00 Tuesday"},
		{"2025-09-23\x1c10:00", dateTimeFormat, "2025-09-23 10:00 Tuesday"},
	}
	for _, tc := range cases {
		tm, err := strptime(tc.in, tc.format)
		got := ""
		if err != nil {
			got = "ValueError: " + err.Error()
		} else {
			got = tm.Format("2006-01-02 15:04 Monday")
		}
		if got != tc.want {
			t.Errorf("strptime(%q, %q) = %q; want %q", tc.in, tc.format, got, tc.want)
		}
	}
}
