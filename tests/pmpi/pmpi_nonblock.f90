! tests/pmpi/pmpi_nonblock.f90 - Non-blocking and persistent collectives
! from Fortran.
!
! mpiexec -n 5 pmpi_nonblock_f OUTDIR: MPICH's Fortran bindings call the C
! MPI_* symbols, so libchoreo-mpi.so serves MPI_IALLREDUCE (in place, and
! with a non-commutative user operator), MPI_IBCAST from a non-zero root
! (completed by an MPI_TEST loop), MPI_IREDUCE_SCATTER_BLOCK, an
! MPI_WAITALL of an MPI_IALLGATHER and point-to-point requests, and an
! MPI_ALLREDUCE_INIT request started 100 times. Checks every result and
! writes them to OUTDIR/rank<R>.bin for tests/pmpi/run-app.sh to compare
! with the native run. Rank 0 prints "pmpi_nonblock_f: passed".
module nb_ops
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
    if (.false.) print *, dtype
  end subroutine matmul2

  integer function val(test, r, k)
    integer, intent(in) :: test, r, k
    val = test * 1000003 + r * 7919 + k
  end function val
end module nb_ops

program pmpi_nonblock_f
  use mpi
  use nb_ops
  implicit none
  integer :: ierr, me, p, i, k, it, failures, total, unit, op, mat
  integer :: to, from
  integer, asynchronous :: x(64), y(64), m(40), g(5), sent(1), got(1)
  integer, asynchronous :: a(16), s(16)
  integer :: acc(16)
  double precision, asynchronous :: d(100)
  integer :: q, qs(3), pq
  logical :: flag
  character(len=4096) :: outdir, path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  if (p /= 5 .or. command_argument_count() /= 1) then
    if (me == 0) print *, 'usage: mpiexec -n 5 pmpi_nonblock_f OUTDIR'
    call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end if
  call get_command_argument(1, outdir)
  write (path, '(A,A,I0,A)') trim(outdir), '/rank', me, '.bin'
  open (newunit=unit, file=trim(path), access='stream', form='unformatted', &
        status='replace')
  failures = 0

  ! MPI_IALLREDUCE in place.
  x = [(val(1, me, k), k = 0, 63)]
  call MPI_Iallreduce(MPI_IN_PLACE, x, 64, MPI_INTEGER, MPI_SUM, &
                      MPI_COMM_WORLD, q, ierr)
  call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
  do k = 0, 63
    if (x(k+1) /= 5 * val(1, 0, k) + 7919 * 10) failures = failures + 1
  end do
  write (unit) x

  ! A non-commutative operator: 10 matrices a rank.
  call MPI_Type_contiguous(4, MPI_INTEGER, mat, ierr)
  call MPI_Type_commit(mat, ierr)
  call MPI_Op_create(matmul2, .false., op, ierr)
  m = [(mod(val(2, me, k), 5) + 1, k = 0, 39)]
  call MPI_Iallreduce(MPI_IN_PLACE, m, 10, mat, op, MPI_COMM_WORLD, q, ierr)
  call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
  write (unit) m

  ! MPI_IBCAST from rank 3, completed by MPI_TEST.
  if (me == 3) then
    d = [(dble(val(3, 3, k)) / 7d0, k = 0, 99)]
  else
    d = -1d0
  end if
  call MPI_Ibcast(d, 100, MPI_DOUBLE_PRECISION, 3, MPI_COMM_WORLD, q, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(q, flag, MPI_STATUS_IGNORE, ierr)
  end do
  do k = 0, 99
    if (d(k+1) /= dble(val(3, 3, k)) / 7d0) failures = failures + 1
  end do
  write (unit) d

  ! MPI_IREDUCE_SCATTER_BLOCK: 8 integers each.
  x(1:40) = [(val(4, me, k), k = 0, 39)]
  call MPI_Ireduce_scatter_block(x, y, 8, MPI_INTEGER, MPI_SUM, &
                                 MPI_COMM_WORLD, q, ierr)
  call MPI_Wait(q, MPI_STATUS_IGNORE, ierr)
  write (unit) y(1:8)

  ! One MPI_WAITALL: an MPI_IALLGATHER and a ring of point-to-point.
  to = mod(me + 1, p)
  from = mod(me + p - 1, p)
  sent(1) = val(5, me, 1)
  got(1) = -1
  call MPI_Iallgather(sent, 1, MPI_INTEGER, g, 1, MPI_INTEGER, &
                      MPI_COMM_WORLD, qs(1), ierr)
  call MPI_Irecv(got, 1, MPI_INTEGER, from, 9, MPI_COMM_WORLD, qs(2), ierr)
  call MPI_Isend(sent, 1, MPI_INTEGER, to, 9, MPI_COMM_WORLD, qs(3), ierr)
  call MPI_Waitall(3, qs, MPI_STATUSES_IGNORE, ierr)
  if (got(1) /= val(5, from, 1)) failures = failures + 1
  do i = 0, p - 1
    if (g(i+1) /= val(5, i, 1)) failures = failures + 1
  end do
  write (unit) g, got

  ! MPI_ALLREDUCE_INIT started 100 times.
  acc = 0
  call MPI_Allreduce_init(a, s, 16, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
                          MPI_INFO_NULL, pq, ierr)
  do it = 1, 100
    a = [(val(6 + it, me, k), k = 0, 15)]
    call MPI_Start(pq, ierr)
    call MPI_Wait(pq, MPI_STATUS_IGNORE, ierr)
    do k = 0, 15
      if (s(k+1) /= 5 * val(6 + it, 0, k) + 7919 * 10) failures = failures + 1
    end do
    acc = ieor(acc, s)
  end do
  call MPI_Request_free(pq, ierr)
  write (unit) acc

  close (unit)
  call MPI_Op_free(op, ierr)
  call MPI_Type_free(mat, ierr)
  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  if (me == 0) then
    if (total == 0) then
      print '(A)', 'pmpi_nonblock_f: passed'
    else
      print '(A,I0,A)', 'pmpi_nonblock_f: FAILED (', total, ' failures)'
    end if
  end if
  call MPI_Finalize(ierr)
end program pmpi_nonblock_f
