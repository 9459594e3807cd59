! tests/pmpi/pmpi_app.f90 - An unmodified Fortran MPI application.
!
! mpiexec -n 6 pmpi_app_f OUTDIR: the Fortran bindings of MPICH call the C
! MPI_* symbols, so libchoreo-mpi.so serves Fortran callers too. Calls
! MPI_ALLGATHER (also with MPI_IN_PLACE), MPI_ALLGATHERV with irregular
! counts, MPI_BCAST from two roots, MPI_ALLGATHER and MPI_ALLGATHERV on an
! intercommunicator (world 0..3 and 4..5), MPI_ALLREDUCE, MPI_REDUCE,
! MPI_REDUCE_SCATTER(_BLOCK) with MPI_SUM (also in place), MPI_MAXLOC and a
! non-commutative user operator; checks every result and writes
! them to OUTDIR/rank<R>.bin for tests/pmpi/run-app.sh to compare with the
! native run. Rank 0 prints "pmpi_app_f: passed".
module pmpi_ops
  implicit none
contains
  ! 2x2 integer matrices mod 1009, one per element of a type of 4
  ! integers: inoutvec = invec * inoutvec.
  subroutine matmul2(invec, inoutvec, n, dtype)
    integer :: n, dtype
    integer :: invec(4*n), inoutvec(4*n)
    integer :: k, c(4)
    do k = 1, 4*n, 4
      c(1) = mod(invec(k) * inoutvec(k) + invec(k+1) * inoutvec(k+2), 1009)
      c(2) = mod(invec(k) * inoutvec(k+1) + invec(k+1) * inoutvec(k+3), 1009)
      c(3) = mod(invec(k+2) * inoutvec(k) + invec(k+3) * inoutvec(k+2), 1009)
      c(4) = mod(invec(k+2) * inoutvec(k+1) + invec(k+3) * inoutvec(k+3), 1009)
      inoutvec(k:k+3) = c
    end do
  end subroutine matmul2
end module pmpi_ops

program pmpi_app_f
  use mpi
  use pmpi_ops
  implicit none
  integer :: ierr, me, p, i, s, n, at, total, failures, op, unit
  integer :: local, ic, inA, remote, base, root, mat
  double precision :: pairs(2, 9), best(2, 9)
  integer :: send(2000), recv(20000), counts(0:7), displs(0:7)
  integer :: m(4), prod(4), want(4), ms(4)
  double precision :: d(500)
  character(len=4096) :: outdir, path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  if (p /= 6 .or. command_argument_count() /= 1) then
    if (me == 0) print *, 'usage: mpiexec -n 6 pmpi_app_f OUTDIR'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  call get_command_argument(1, outdir)
  write (path, '(A,A,I0,A)') trim(outdir), '/rank', me, '.bin'
  open (newunit=unit, file=trim(path), access='stream', form='unformatted', &
        status='replace')
  failures = 0

  ! MPI_ALLGATHER of 1000 integers, twice (a cached plan), then in place.
  do i = 1, 2
    send(1:1000) = [(val(1, me, s), s = 0, 999)]
    call MPI_Allgather(send, 1000, MPI_INTEGER, recv, 1000, MPI_INTEGER, &
                       MPI_COMM_WORLD, ierr)
    do s = 0, p - 1
      if (any(recv(s*1000+1:s*1000+1000) /= [(val(1, s, n), n = 0, 999)])) &
        failures = failures + 1
    end do
    write (unit) recv(1:6000)
  end do
  recv(1:42) = -1
  recv(me*7+1:me*7+7) = [(val(2, me, s), s = 0, 6)]
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, 7, &
                     MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do s = 0, p - 1
    if (any(recv(s*7+1:s*7+7) /= [(val(2, s, n), n = 0, 6)])) &
      failures = failures + 1
  end do
  write (unit) recv(1:42)

  ! MPI_ALLGATHERV: rank s sends mod(s*5, 9) integers, stored in reverse
  ! order with gaps of 2.
  at = 2
  do s = p - 1, 0, -1
    counts(s) = mod(s * 5, 9)
    displs(s) = at
    at = at + counts(s) + 2
  end do
  recv(1:at) = -1
  send(1:counts(me)) = [(val(3, me, s), s = 0, counts(me) - 1)]
  call MPI_Allgatherv(send, counts(me), MPI_INTEGER, recv, counts, displs, &
                      MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do s = 0, p - 1
    if (counts(s) > 0) then
      if (any(recv(displs(s)+1:displs(s)+counts(s)) /= &
              [(val(3, s, n), n = 0, counts(s) - 1)])) failures = failures + 1
    end if
  end do
  write (unit) recv(1:at)

  ! MPI_BCAST of 500 doubles from roots 0 and 5.
  do root = 0, 5, 5
    d = 0
    if (me == root) d = [(val(4, root, s) / 3.0d0, s = 0, 499)]
    call MPI_Bcast(d, 500, MPI_DOUBLE_PRECISION, root, MPI_COMM_WORLD, ierr)
    if (any(d /= [(val(4, root, s) / 3.0d0, s = 0, 499)])) &
      failures = failures + 1
    write (unit) d
  end do

  ! An intercommunicator of world 0..3 (A) and 4..5 (B).
  inA = 0
  if (me < 4) inA = 1
  call MPI_Comm_split(MPI_COMM_WORLD, inA, me, local, ierr)
  if (inA == 1) then
    call MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 4, 7, ic, ierr)
    base = 4
  else
    call MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 0, 7, ic, ierr)
    base = 0
  end if
  call MPI_Comm_remote_size(ic, remote, ierr)
  send(1:3) = [(val(5, me, s), s = 0, 2)]
  call MPI_Allgather(send, 3, MPI_INTEGER, recv, 3, MPI_INTEGER, ic, ierr)
  do s = 0, remote - 1
    if (any(recv(s*3+1:s*3+3) /= [(val(5, base + s, n), n = 0, 2)])) &
      failures = failures + 1
  end do
  write (unit) recv(1:3*remote)
  at = 0
  do s = 0, remote - 1
    counts(s) = mod((base + s) * 3, 7)
    displs(s) = at
    at = at + counts(s)
  end do
  n = mod(me * 3, 7)
  send(1:n) = [(val(6, me, s), s = 0, n - 1)]
  call MPI_Allgatherv(send, n, MPI_INTEGER, recv, counts, displs, &
                      MPI_INTEGER, ic, ierr)
  do s = 0, remote - 1
    if (counts(s) > 0) then
      if (any(recv(displs(s)+1:displs(s)+counts(s)) /= &
              [(val(6, base + s, i), i = 0, counts(s) - 1)])) &
        failures = failures + 1
    end if
  end do
  write (unit) recv(1:at)
  call MPI_Comm_free(ic, ierr)
  call MPI_Comm_free(local, ierr)

  ! MPI_ALLREDUCE, MPI_REDUCE (in place at the root), MPI_REDUCE_SCATTER
  ! and MPI_REDUCE_SCATTER_BLOCK of integer sums (exact), MPI_MAXLOC on
  ! MPI_2DOUBLE_PRECISION, and a non-commutative product in rank order.
  send(1:1200) = [(mod(val(7, me, s), 1000), s = 0, 1199)]
  call MPI_Allreduce(send, recv, 1200, MPI_INTEGER, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  do i = 0, 1199
    if (recv(i+1) /= sum([(mod(val(7, s, i), 1000), s = 0, p - 1)])) &
      failures = failures + 1
  end do
  write (unit) recv(1:1200)
  recv(1:10) = send(1:10)
  call MPI_Allreduce(MPI_IN_PLACE, recv, 10, MPI_INTEGER, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  do i = 0, 9
    if (recv(i+1) /= sum([(mod(val(7, s, i), 1000), s = 0, p - 1)])) &
      failures = failures + 1
  end do
  write (unit) recv(1:10)
  recv(1:30) = send(1:30)
  if (me == 4) then
    call MPI_Reduce(MPI_IN_PLACE, recv, 30, MPI_INTEGER, MPI_SUM, 4, &
                    MPI_COMM_WORLD, ierr)
    do i = 0, 29
      if (recv(i+1) /= sum([(mod(val(7, s, i), 1000), s = 0, p - 1)])) &
        failures = failures + 1
    end do
    write (unit) recv(1:30)
  else
    call MPI_Reduce(send, recv, 30, MPI_INTEGER, MPI_SUM, 4, &
                    MPI_COMM_WORLD, ierr)
  end if
  counts(0:p-1) = [(s + 1, s = 0, p - 1)]
  at = sum(counts(0:me-1))
  call MPI_Reduce_scatter(send, recv, counts, MPI_INTEGER, MPI_SUM, &
                          MPI_COMM_WORLD, ierr)
  do i = 0, counts(me) - 1
    if (recv(i+1) /= sum([(mod(val(7, s, at + i), 1000), s = 0, p - 1)])) &
      failures = failures + 1
  end do
  write (unit) recv(1:counts(me))
  call MPI_Reduce_scatter_block(send, recv, 200, MPI_INTEGER, MPI_SUM, &
                                MPI_COMM_WORLD, ierr)
  do i = 0, 199
    if (recv(i+1) /= sum([(mod(val(7, s, me*200 + i), 1000), s = 0, p - 1)])) &
      failures = failures + 1
  end do
  write (unit) recv(1:200)
  pairs(1, :) = [(dble(mod(val(9, me, i), 13)), i = 0, 8)]
  pairs(2, :) = dble(me)
  call MPI_Allreduce(pairs, best, 9, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, &
                     MPI_COMM_WORLD, ierr)
  do i = 0, 8
    n = 0
    do s = 1, p - 1
      if (mod(val(9, s, i), 13) > mod(val(9, n, i), 13)) n = s
    end do
    if (best(1, i+1) /= dble(mod(val(9, n, i), 13)) .or. &
        best(2, i+1) /= dble(n)) failures = failures + 1
  end do
  write (unit) best
  call MPI_Type_contiguous(4, MPI_INTEGER, mat, ierr)
  call MPI_Type_commit(mat, ierr)
  call MPI_Op_create(matmul2, .false., op, ierr)
  m = [(mod(val(8, me, s), 7) + 1, s = 0, 3)]
  want = [1, 0, 0, 1]
  do s = 0, p - 1
    ms = [(mod(val(8, s, i), 7) + 1, i = 0, 3)]
    call matmul2(want, ms, 1, 0)
    want = ms
  end do
  call MPI_Allreduce(m, prod, 1, mat, op, MPI_COMM_WORLD, ierr)
  if (any(prod /= want)) failures = failures + 1
  write (unit) prod
  prod = 0
  call MPI_Reduce(m, prod, 1, mat, op, 2, MPI_COMM_WORLD, ierr)
  if (me == 2) then
    if (any(prod /= want)) failures = failures + 1
    write (unit) prod
  end if
  call MPI_Op_free(op, ierr)
  call MPI_Type_free(mat, ierr)
  close (unit)

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  if (me == 0) then
    if (total == 0) then
      print '(A)', 'pmpi_app_f: passed'
    else
      print '(A,I0,A)', 'pmpi_app_f: FAILED (', total, ' failures)'
    end if
  end if
  call MPI_Finalize(ierr)

contains
  integer function val(test, rank, i)
    integer, intent(in) :: test, rank, i
    val = test * 100003 + rank * 7919 + i * 31 + i / 8
  end function val
end program pmpi_app_f
