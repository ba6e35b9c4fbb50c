# Prints each function longer than `limit` lines (awk -v limit=N -f function-lengths.awk FILE...)
# and exits 1 if there is one. Reads clang-format's layout: a definition starts on a line at its
# scope's indentation (column 0, or 2 inside a type at column 0), its body ends at the first line
# that is that indentation and "}"; lines inside a raw string R"x(...)x" are skipped.
function opens_type(s) { return s ~ /^ *(template <.*> )?(struct|class|union|enum)( |$)/ }
FNR == 1 { inclass = 0; start = 0; cand = 0; inraw = 0 }
inraw { if ($0 ~ /\)[A-Za-z_]*"/) inraw = 0; next }
/R"[A-Za-z_]*\($/ { inraw = 1 }
start {
  if (substr($0, 1, length(ind) + 1) == ind "}") {
    n = FNR - start + 1
    if (n > limit) { printf "%s:%d: %d lines (limit %d): %s\n", FILENAME, start, n, limit, head; bad = 1 }
    start = 0
  }
  next
}
inclass && /^\};/ { inclass = 0; cand = 0; next }
{ ind = inclass ? "  " : "" }
substr($0, 1, length(ind)) == ind && substr($0, length(ind) + 1, 1) ~ /[^ #\/}]/ {
  cand = FNR; head = $0
  if (opens_type($0) || /^ *(namespace|extern|typedef|using)( |$)/ || /= *\{$/) {
    cand = 0
    if (!inclass && opens_type($0) && /\{$/) inclass = 1
  }
}
cand && /\{$/ { start = cand; cand = 0; next }
cand && /;$/ { cand = 0 }
END { exit bad }
