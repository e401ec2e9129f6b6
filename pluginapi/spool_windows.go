//go:build windows

package pluginapi

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// restrictToOwner gives the spool file f, just created, a protected ACL
// that grants the current user alone full control: on Windows mode bits
// say nothing of who may read a file, and a tool result may hold secrets.
// It is lib/ownerfile's Restrict, repeated because pluginapi imports no
// other project package; it sets the ACL by name, since f's handle lacks
// the WRITE_DAC right.
func restrictToOwner(f *os.File) error {
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return fmt.Errorf("restrict %s to its owner: current user: %w", f.Name(), err)
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: windows.GENERIC_ALL,
		AccessMode:        windows.GRANT_ACCESS,
		Inheritance:       windows.NO_INHERITANCE,
		Trustee: windows.TRUSTEE{
			TrusteeForm:  windows.TRUSTEE_IS_SID,
			TrusteeType:  windows.TRUSTEE_IS_USER,
			TrusteeValue: windows.TrusteeValueFromSID(user.User.Sid),
		},
	}}, nil)
	if err != nil {
		return fmt.Errorf("restrict %s to its owner: build the ACL: %w", f.Name(), err)
	}
	err = windows.SetNamedSecurityInfo(f.Name(), windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, acl, nil)
	if err != nil {
		return fmt.Errorf("restrict %s to its owner: set the ACL: %w", f.Name(), err)
	}
	return nil
}
