//go:build windows

package ownerfile

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// unixModes is false: ACLs decide who may read a file here.
const unixModes = false

// Restrict replaces f's ACL with one that grants the current user full
// control and nobody else anything, protected from the ACLs of its parent
// directories. Call it on a file just created, before writing to it. It sets
// the ACL by name: f's own handle, opened to read and write, lacks the
// WRITE_DAC right that changing an ACL needs. A file that another process
// may rename meanwhile is better created with SecurityAttributes.
func Restrict(f *os.File) error {
	acl, err := ownerACL()
	if err != nil {
		return fmt.Errorf("restrict %s to its owner: %w", f.Name(), err)
	}
	err = windows.SetNamedSecurityInfo(f.Name(), windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, acl, nil)
	if err != nil {
		return fmt.Errorf("restrict %s to its owner: set the ACL: %w", f.Name(), err)
	}
	return nil
}

// SecurityAttributes returns what windows.CreateFile takes to create a file
// with the ACL Restrict sets, in the same step: the file never has its
// folder's ACL, and there is no name to set it by afterwards that another
// process could have renamed in between.
func SecurityAttributes() (*windows.SecurityAttributes, error) {
	acl, err := ownerACL()
	if err != nil {
		return nil, err
	}
	sd, err := windows.NewSecurityDescriptor()
	if err != nil {
		return nil, fmt.Errorf("owner-only security descriptor: %w", err)
	}
	if err := sd.SetDACL(acl, true, false); err != nil {
		return nil, fmt.Errorf("owner-only security descriptor: %w", err)
	}
	if err := sd.SetControl(windows.SE_DACL_PROTECTED, windows.SE_DACL_PROTECTED); err != nil {
		return nil, fmt.Errorf("owner-only security descriptor: %w", err)
	}
	self, err := sd.ToSelfRelative() // one block, its parts at offsets, not pointers
	if err != nil {
		return nil, fmt.Errorf("owner-only security descriptor: %w", err)
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: self}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	return sa, nil
}

// ownerACL is an ACL granting the current user full control and nobody
// else anything.
func ownerACL() (*windows.ACL, error) {
	user, err := currentUser()
	if err != nil {
		return nil, err
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: windows.GENERIC_ALL,
		AccessMode:        windows.GRANT_ACCESS,
		Inheritance:       windows.NO_INHERITANCE,
		Trustee: windows.TRUSTEE{
			TrusteeForm:  windows.TRUSTEE_IS_SID,
			TrusteeType:  windows.TRUSTEE_IS_USER,
			TrusteeValue: windows.TrusteeValueFromSID(user),
		},
	}}, nil)
	if err != nil {
		return nil, fmt.Errorf("build the owner-only ACL: %w", err)
	}
	return acl, nil
}

// Exposed says which other account the file's ACL lets in ("grants access
// to DOMAIN\\bob") and the icacls command that fixes it; "" when only its
// owner, the current user, SYSTEM and the Administrators have access.
func Exposed(path string) (problem, fix string, err error) {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return "", "", err
	}
	fix = fmt.Sprintf(`icacls "%s" /inheritance:r /grant:r "%%USERNAME%%:F"`, path)
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		return "has no ACL, so every account may read it", fix, nil
	}
	trusted, err := trustedSIDs(sd)
	if err != nil {
		return "", "", err
	}
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return "", "", err
		}
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || ace.Header.AceFlags&windows.INHERIT_ONLY_ACE != 0 {
			continue
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if !anyEqual(trusted, sid) {
			return "grants access to " + accountName(sid), fix, nil
		}
	}
	return "", "", nil
}

// trustedSIDs are the accounts a private file may grant: its owner, the
// current user, SYSTEM and the Administrators.
func trustedSIDs(sd *windows.SECURITY_DESCRIPTOR) ([]*windows.SID, error) {
	var out []*windows.SID
	if owner, _, err := sd.Owner(); err == nil && owner != nil {
		out = append(out, owner)
	}
	user, err := currentUser()
	if err != nil {
		return nil, err
	}
	out = append(out, user)
	for _, k := range []windows.WELL_KNOWN_SID_TYPE{windows.WinLocalSystemSid, windows.WinBuiltinAdministratorsSid} {
		sid, err := windows.CreateWellKnownSid(k)
		if err != nil {
			return nil, err
		}
		out = append(out, sid)
	}
	return out, nil
}

func anyEqual(sids []*windows.SID, sid *windows.SID) bool {
	for _, s := range sids {
		if s.Equals(sid) {
			return true
		}
	}
	return false
}

// currentUser is the SID of the account this process runs as.
func currentUser() (*windows.SID, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("current user: %w", err)
	}
	return u.User.Sid, nil
}

// accountName is DOMAIN\name for sid, or the SID string.
func accountName(sid *windows.SID) string {
	if name, domain, _, err := sid.LookupAccount(""); err == nil {
		return domain + `\` + name
	}
	return sid.String()
}
