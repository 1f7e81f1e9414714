! fpvm3.h - constants for Fortran programs that call openpvm's libfpvm3
! (the PVM 3.4 Fortran interface): include 'fpvm3.h' in every program
! unit that calls pvmf* routines.  The values are those of PVM 3.4.6.
! Written to be read as fixed form and as free form: statements start in
! column 7 and stay within column 72, comments start with '!'.
! The reduce operations are subroutines: declare the ones you pass to
! pvmfreduce with  external PvmSum  (PvmMax, PvmMin, PvmProduct).
!
! pvmfspawn flags
      integer, parameter :: PVMTASKDEFAULT = 0
      integer, parameter :: PVMTASKHOST = 1
      integer, parameter :: PVMTASKARCH = 2
      integer, parameter :: PVMTASKDEBUG = 4
      integer, parameter :: PVMTASKTRACE = 8
      integer, parameter :: PVMMPPFRONT = 16
      integer, parameter :: PVMHOSTCOMPL = 32
      integer, parameter :: PVMNOSPAWNPARENT = 64
!
! their older names
      integer, parameter :: PVMHOST = 1
      integer, parameter :: PVMARCH = 2
      integer, parameter :: PVMDEBUG = 4
      integer, parameter :: PVMTRACE = 8
!
! pvmfinitsend and pvmfmkbuf encodings
      integer, parameter :: PVMDATADEFAULT = 0
      integer, parameter :: PVMDATARAW = 1
      integer, parameter :: PVMDATAINPLACE = 2
      integer, parameter :: PVMDATATRACE = 4
      integer, parameter :: PVMDEFAULT = 0
      integer, parameter :: PVMRAW = 1
      integer, parameter :: PVMINPLACE = 2
!
! pvmfnotify events, and the flag that cancels a request
      integer, parameter :: PVMTASKEXIT = 1
      integer, parameter :: PVMHOSTDELETE = 2
      integer, parameter :: PVMHOSTADD = 3
      integer, parameter :: PVMROUTEADD = 4
      integer, parameter :: PVMROUTEDELETE = 5
      integer, parameter :: PVMNOTIFYCANCEL = 256
!
! data types of pvmfpack, pvmfunpack, pvmfpsend, pvmfprecv, pvmfreduce
      integer, parameter :: STRING = 0
      integer, parameter :: BYTE1 = 1
      integer, parameter :: INTEGER2 = 2
      integer, parameter :: INTEGER4 = 3
      integer, parameter :: REAL4 = 4
      integer, parameter :: COMPLEX8 = 5
      integer, parameter :: REAL8 = 6
      integer, parameter :: COMPLEX16 = 7
      integer, parameter :: INTEGER8 = 8
!
! pvmfsetopt and pvmfgetopt options
      integer, parameter :: PVMROUTE = 1
      integer, parameter :: PVMDEBUGMASK = 2
      integer, parameter :: PVMAUTOERR = 3
      integer, parameter :: PVMOUTPUTTID = 4
      integer, parameter :: PVMOUTPUTCODE = 5
      integer, parameter :: PVMTRACETID = 6
      integer, parameter :: PVMTRACECODE = 7
      integer, parameter :: PVMTRACEBUFFER = 8
      integer, parameter :: PVMTRACEOPTIONS = 9
      integer, parameter :: PVMFRAGSIZE = 10
      integer, parameter :: PVMRESVTIDS = 11
      integer, parameter :: PVMSOUTPUTTID = 12
      integer, parameter :: PVMSOUTPUTCODE = 13
      integer, parameter :: PVMSTRACETID = 14
      integer, parameter :: PVMSTRACECODE = 15
      integer, parameter :: PVMSTRACEBUFFER = 16
      integer, parameter :: PVMSTRACEOPTIONS = 17
      integer, parameter :: PVMSHOWTIDS = 18
      integer, parameter :: PVMPOLLTYPE = 19
      integer, parameter :: PVMPOLLTIME = 20
      integer, parameter :: PVMOUTPUTCTX = 21
      integer, parameter :: PVMTRACECTX = 22
      integer, parameter :: PVMSOUTPUTCTX = 23
      integer, parameter :: PVMSTRACECTX = 24
      integer, parameter :: PVMNORESET = 25
!
! values of PVMTRACEOPTIONS, PVMPOLLTYPE and PVMROUTE
      integer, parameter :: PVMTRACEFULL = 1
      integer, parameter :: PVMTRACETIME = 2
      integer, parameter :: PVMTRACECOUNT = 3
      integer, parameter :: PVMPOLLCONSTANT = 1
      integer, parameter :: PVMPOLLSLEEP = 2
      integer, parameter :: PVMDONTROUTE = 1
      integer, parameter :: PVMALLOWDIRECT = 2
      integer, parameter :: PVMROUTEDIRECT = 3
!
! mailbox flags (pvmfputinfo, pvmfrecvinfo)
      integer, parameter :: PVMMBOXDEFAULT = 0
      integer, parameter :: PVMMBOXPERSISTENT = 1
      integer, parameter :: PVMMBOXMULTIINSTANCE = 2
      integer, parameter :: PVMMBOXOVERWRITABLE = 4
      integer, parameter :: PVMMBOXFIRSTAVAIL = 8
      integer, parameter :: PVMMBOXREADANDDELETE = 16
      integer, parameter :: PVMMBOXWAITFORINFO = 32
!
! error codes
      integer, parameter :: PvmOk = 0
      integer, parameter :: PvmBadParam = -2
      integer, parameter :: PvmMismatch = -3
      integer, parameter :: PvmOverflow = -4
      integer, parameter :: PvmNoData = -5
      integer, parameter :: PvmNoHost = -6
      integer, parameter :: PvmNoFile = -7
      integer, parameter :: PvmDenied = -8
      integer, parameter :: PvmNoMem = -10
      integer, parameter :: PvmBadMsg = -12
      integer, parameter :: PvmSysErr = -14
      integer, parameter :: PvmNoBuf = -15
      integer, parameter :: PvmNoSuchBuf = -16
      integer, parameter :: PvmNullGroup = -17
      integer, parameter :: PvmDupGroup = -18
      integer, parameter :: PvmNoGroup = -19
      integer, parameter :: PvmNotInGroup = -20
      integer, parameter :: PvmNoInst = -21
      integer, parameter :: PvmHostFail = -22
      integer, parameter :: PvmNoParent = -23
      integer, parameter :: PvmNotImpl = -24
      integer, parameter :: PvmDSysErr = -25
      integer, parameter :: PvmBadVersion = -26
      integer, parameter :: PvmOutOfRes = -27
      integer, parameter :: PvmDupHost = -28
      integer, parameter :: PvmCantStart = -29
      integer, parameter :: PvmAlready = -30
      integer, parameter :: PvmNoTask = -31
      integer, parameter :: PvmNotFound = -32
      integer, parameter :: PvmExists = -33
      integer, parameter :: PvmHostrNMstr = -34
      integer, parameter :: PvmParentNotSet = -35
      integer, parameter :: PvmIPLoopback = -36
!
! older names of two mailbox codes
      integer, parameter :: PvmNoEntry = -32
      integer, parameter :: PvmDupEntry = -33
