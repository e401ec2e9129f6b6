package ownertest

import (
	"testing"

	"golang.org/x/sys/windows"
)

// Expose lets every account read the file at path: an ACL that grants
// Everyone read access beside the entries it inherits, which keep its
// owner's.
func Expose(t testing.TB, path string) {
	t.Helper()
	everyone, err := windows.CreateWellKnownSid(windows.WinWorldSid)
	if err != nil {
		t.Fatal(err)
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: windows.GENERIC_READ,
		AccessMode:        windows.GRANT_ACCESS,
		Inheritance:       windows.NO_INHERITANCE,
		Trustee: windows.TRUSTEE{
			TrusteeForm:  windows.TRUSTEE_IS_SID,
			TrusteeType:  windows.TRUSTEE_IS_WELL_KNOWN_GROUP,
			TrusteeValue: windows.TrusteeValueFromSID(everyone),
		},
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Not protected: the entries inherited from the parent, which give the
	// owner access, stay.
	if err := windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION, nil, nil, acl, nil); err != nil {
		t.Fatal(err)
	}
}

// Fix is the command ownerfile.Exposed gives to keep the file at path to
// its owner again.
func Fix(path string) string {
	return `icacls "` + path + `" /inheritance:r /grant:r "%USERNAME%:F"`
}
