/*
 * bcryptprimitives.c: the one function of Windows' bcryptprimitives.dll
 * that Go 1.24 and later call at start (ProcessPrng, the system's random
 * source), for wine before 9, which lacks the DLL. It fills the buffer from
 * RtlGenRandom (advapi32's SystemFunction036), which wine has. Built by
 * release/wine.sh with mingw-w64 into the wine prefix of the test run only;
 * nothing shipped uses it.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE dll, DWORD reason, LPVOID reserved)
{
	(void)dll;
	(void)reason;
	(void)reserved;
	return TRUE;
}
