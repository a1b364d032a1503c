"""The test suite, laid out first by what a test needs: unit/ (recorded trees and captures, any
user; inside it, folders like the package's: unit/core/session/ tests tuitune/core/session/),
kernel/ (root: its own network namespaces and veth pairs), tui/ (the screen through Textual's
pilot, on recorded hosts), security/ (a local attacker's moves against root), vm/ (inside the
VM bench's guest). Shared support code is in support/ (host trees from real captures, fakes
for what this machine lacks); fixtures/ holds the vendored captures."""
