! pt_fmaster.f - a Fortran master with C workers (fortran.bats): spawns
! three pt_cworker, sends each a message of every pvmfpack type code,
! checks what they computed, exchanges a psend/precv array, and reduces
! and gathers over a group with them.  Prints what it found.
      program ptfmaster
      implicit none
      include 'fpvm3.h'
      integer mytid, tids(3), numt, info, i, k, bufid, n
      integer iv(4), isum, ssum, who, ibuf(10), atid, atag, alen
      integer*2 sv(3)
      integer*8 lv(2), lsum
      real fv(2)
      complex cv
      double precision dv(3), dsum, fsum
      complex*16 zv
      character*11 str, rev
      integer inst, val(2), gat(4), gsz
      external PvmSum

      call pvmfmytid(mytid)
!     first in the group, so instance 0 and the root of the collectives
      call pvmfjoingroup('fcgroup', inst)
      print '(a,i2)', 'instance', inst
      call pvmfspawn('pt_cworker', PVMDEFAULT, '*', 3, tids, numt)
      print '(a,i2)', 'spawned', numt
      if (numt .ne. 3) stop 1

      iv = (/ 1, 2, 3, 4 /)
      sv = (/ 10_2, -20_2, 30_2 /)
      lv = (/ 2000000000_8, 7_8 /)
      fv = (/ 1.5, 2.25 /)
      cv = (0.5, -1.0)
      dv = (/ 0.125d0, 1.0d10, -3.0d0 /)
      zv = (2.0d0, 4.0d0)
      str = 'hello world'
      n = 4
      call pvmfinitsend(PVMDEFAULT, bufid)
      call pvmfpack(INTEGER4, n, 1, 1, info)
      call pvmfpack(INTEGER4, iv, 4, 1, info)
      call pvmfpack(INTEGER2, sv, 3, 1, info)
      call pvmfpack(INTEGER8, lv, 2, 1, info)
      call pvmfpack(REAL4, fv, 2, 1, info)
      call pvmfpack(COMPLEX8, cv, 1, 1, info)
      call pvmfpack(REAL8, dv, 3, 1, info)
      call pvmfpack(COMPLEX16, zv, 1, 1, info)
      call pvmfpack(STRING, str, 11, 1, info)
      call pvmfmcast(3, tids, 1, info)
      print '(a,i2)', 'mcast info', info

      do k = 1, 3
         call pvmfrecv(-1, 2, bufid)
         call pvmfunpack(INTEGER4, who, 1, 1, info)
         call pvmfunpack(INTEGER4, isum, 1, 1, info)
         call pvmfunpack(INTEGER4, ssum, 1, 1, info)
         call pvmfunpack(INTEGER8, lsum, 1, 1, info)
         call pvmfunpack(REAL8, dsum, 1, 1, info)
         call pvmfunpack(REAL8, fsum, 1, 1, info)
         rev = ' '
         call pvmfunpack(STRING, rev, 11, 1, info)
         if (any(tids .eq. who)) then
            print '(a,i3,i4,i12,es12.4,f8.3,1x,a)', 'worker', isum,
     &         ssum, lsum, dsum, fsum, rev
         else
            print *, 'answer from an unknown tid', who
         end if
      end do

      do i = 1, 10
         ibuf(i) = i * 7
      end do
      do k = 1, 3
         call pvmfpsend(tids(k), 3, ibuf, 10, INTEGER4, info)
      end do
      do k = 1, 3
         call pvmfprecv(tids(k), 4, ibuf, 10, INTEGER4, atid, atag,
     &      alen, info)
         print '(a,l2,i3,i4,i5)', 'precv', atid .eq. tids(k), atag,
     &      alen, sum(ibuf)
         ibuf = ibuf / 2
      end do

      call pvmfbarrier('fcgroup', 4, info)
      call pvmfgsize('fcgroup', gsz)
      print '(a,i2)', 'group size', gsz
      val(1) = inst
      val(2) = inst * inst
      call pvmfreduce(PvmSum, val, 2, INTEGER4, 5, 'fcgroup', 0, info)
      print '(a,i3,2i4)', 'reduce', info, val
      gat = 0
      call pvmfgather(gat, 100 + inst, 1, INTEGER4, 6, 'fcgroup', 0,
     &   info)
      print '(a,i3,4i5)', 'gather', info, gat
      call pvmfbarrier('fcgroup', 4, info)
      call pvmflvgroup('fcgroup', info)
      call pvmfexit(info)
      print '(a,i2)', 'exit', info
      end
