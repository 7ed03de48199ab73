// Ctrl-C (SIGINT) and SIGTERM as a request to stop: the first one sets a flag that long loops
// (the corpus gate, the emulator's dispatch, the differential check's seeds) poll, so that the
// tool can say what it finished before it exits; a second one ends the process at once.
#pragma once

namespace asmevo {

// Install the handlers (a tool's main calls this once).
void catchInterrupts();
// Whether a stop was requested. Cheap: an atomic load.
bool interrupted();
// The signal that requested it (SIGINT or SIGTERM), 0 if none.
int interruptSignal();
// The exit code of an interrupted run: 128 + the signal, as the shell reports a killed one.
int interruptExitCode();

} // namespace asmevo
