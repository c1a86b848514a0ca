package banking

import (
	"regexp"
	"strconv"
	"time"
)

// datetime.strptime for the formats the tools use ("%m/%d/%Y" and
// "%m/%d/%Y %H:%M:%S"), with Python's matching rules (one- or two-digit
// fields, the whole string matched, calendar checks) and its errors.

var (
	reMDY    = regexp.MustCompile(`^(1[0-2]|0[1-9]|[1-9])/(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])/(\d\d\d\d)$`)
	reMDYHMS = regexp.MustCompile(`^(1[0-2]|0[1-9]|[1-9])/(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])/(\d\d\d\d) (2[0-3]|[0-1]\d|\d):([0-5]\d|\d):(6[0-1]|[0-5]\d|\d)$`)
)

const (
	fmtMDY    = "%m/%d/%Y"
	fmtMDYHMS = "%m/%d/%Y %H:%M:%S"
)

// strptime parses v with one of the two formats.
func strptime(v any, format string) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, typeErr("strptime() argument 1 must be str, not %s", typeName(v))
	}
	re := reMDY
	if format == fmtMDYHMS {
		re = reMDYHMS
	}
	m := re.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, valueErr("time data %s does not match format '%s'", repr(s), format)
	}
	n := make([]int, len(m))
	for i := 1; i < len(m); i++ {
		d := m[i]
		if len(d) > 0 && d[0] == ' ' {
			d = d[1:]
		}
		n[i], _ = strconv.Atoi(d)
	}
	y, mo, d := n[3], n[1], n[2]
	if y < 1 {
		return time.Time{}, valueErr("year 0 is out of range")
	}
	t := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return time.Time{}, valueErr("day is out of range for month")
	}
	if format == fmtMDYHMS {
		sec := n[6]
		if sec > 59 {
			sec = 59 // Python clamps a leap second
		}
		t = t.Add(time.Duration(n[4])*time.Hour + time.Duration(n[5])*time.Minute + time.Duration(sec)*time.Second)
	}
	return t, nil
}

// nowTime is get_now(): 2025-11-14 03:40:00.
var nowTime = time.Date(2025, 11, 14, 3, 40, 0, 0, time.UTC)

// todayTime is datetime.strptime(get_today_str(), "%m/%d/%Y").
var todayTime = time.Date(2025, 11, 14, 0, 0, 0, 0, time.UTC)

// daysBetween is (later - earlier).days: whole days, floored.
func daysBetween(later, earlier time.Time) int {
	d := later.Sub(earlier)
	days := int(d / (24 * time.Hour))
	if d < 0 && d%(24*time.Hour) != 0 {
		days--
	}
	return days
}
