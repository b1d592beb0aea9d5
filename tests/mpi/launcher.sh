# launcher.sh -- sourced by run.sh and example.sh: RUN, the MPI launcher
# ($MPIRUN, default mpirun; mpirun.mpich for an MPICH build) with the flags
# Open MPI needs here, and the environment every MPI test runs in.
RUN=("$MPIRUN")
if "$MPIRUN" --version 2>&1 | grep -q "Open MPI"; then
    RUN+=(--oversubscribe)
    [ "$(id -u)" = 0 ] && RUN+=(--allow-run-as-root)
fi
# Open MPI's own allocations are reported as leaks under LeakSanitizer
# (no frame of mmnc's in those reports).
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
# An oversubscribed rank should yield its core while it waits.
export OMPI_MCA_mpi_yield_when_idle=1
