# What `make test` shows of `swift test`'s output (the whole log goes to .build/test.log): every
# line except the events of a test that started or passed. Build progress, a line per suite,
# every failure and everything a test prints stay.
#
#   swift test 2>&1 | awk -f scripts/quiet-test-output.awk
#
# A swift-testing event can span several lines: a display name or an argument that holds a line
# break is printed as it is ("◇ Test case passing 1 argument text → "GET /⏎⏎" to … started.").
# So the filter works on whole events, not lines: an event it leaves out begins with its symbol
# and runs until the line that ends it ("… started." after " to NAME" for a test case, "… started."
# for a test or suite, "… passed after N seconds." for a pass). A line that begins another event
# (a symbol swift-testing starts events with, or XCTest's "Test Case"/"Test Suite") ends it too,
# so whatever follows an unfinished event is never hidden; the cost is that the rest of an argument
# line beginning with such a symbol would be shown. ReceiptDeskCLITests' "make test's output
# filter" runs this over sample logs.

# A line that begins an event: swift-testing's symbols (◇ start, ✔ pass, ✘ fail, ✖ pass with known
# issues, ➜ skip, ↳ details, ⚠ warning, ⎙ attachment, ± difference), or an XCTest line.
function begins_event(line) {
    return line ~ /^(◇|✔|✘|✖|➜|↳|⚠|⚠︎|⎙|±) / || line ~ /^Test (Case|Suite) '/
}

{
    line = $0
    sub(/\r$/, "", line)
    if (quiet != "") {
        if (!begins_event(line)) {
            if (line ~ quiet) quiet = ""
            next
        }
        quiet = ""
    }
    # XCTest: a test case that started or passed, and a suite that started (a failure stays).
    if (line ~ /^Test Case '.*' (started|passed)/ || line ~ /^Test Suite '.*' started/) next
    if (line ~ /^◇ /) {
        # A test case's event ends with " to NAME started."; a test's or suite's with " started.".
        end = (line ~ /^◇ Test case /) ? "( to (\"|[^ ]+\\().* started\\.)$" : " started\\.$"
        if (line !~ end) quiet = end
        next
    }
    # A test that passed (not the run's summary, "✔ Test run with N tests …").
    if (line ~ /^✔ Test / && line !~ /^✔ Test run with [0-9]+ test/) {
        end = " passed after [0-9.]+ seconds[^\"]*\\.$"
        if (line !~ end) quiet = end
        next
    }
    print
    fflush()
}
