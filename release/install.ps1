# Install plughost and its transport plugins on Windows from a release archive.
#
#   irm https://github.com/plughost/plughost/releases/latest/download/install.ps1 | iex
#   .\install.ps1 -Version 1.2.3 -Prefix "$env:LOCALAPPDATA\Programs\plughost"
#
# Downloads plughost_<version>_windows_<arch>.zip and SHA256SUMS, checks the
# archive's SHA-256 against SHA256SUMS (and stops on a mismatch), unpacks
# plughost.exe with plugins\ beside it (where it looks for them) into Prefix,
# and adds Prefix to the user's PATH. -BaseUrl serves the archive and
# SHA256SUMS from elsewhere (a mirror, a local directory).
param(
    [string]$Version = $env:PLUGHOST_VERSION,
    [string]$Prefix = $(if ($env:PLUGHOST_PREFIX) { $env:PLUGHOST_PREFIX } else { Join-Path $env:LOCALAPPDATA 'Programs\plughost' }),
    [string]$BaseUrl = $env:PLUGHOST_BASE_URL
)
$ErrorActionPreference = 'Stop'

$arch = switch ($env:PROCESSOR_ARCHITECTURE) {
    'AMD64' { 'amd64' }
    'ARM64' { 'arm64' }
    default { throw "unsupported architecture $env:PROCESSOR_ARCHITECTURE" }
}
if (-not $BaseUrl) {
    $BaseUrl = if ($Version) { "https://github.com/plughost/plughost/releases/download/v$($Version.TrimStart('v'))" }
               else { 'https://github.com/plughost/plughost/releases/latest/download' }
}

$tmp = Join-Path ([IO.Path]::GetTempPath()) ("plughost-" + [guid]::NewGuid())
New-Item -ItemType Directory -Path $tmp | Out-Null
try {
    $sums = Join-Path $tmp 'SHA256SUMS'
    Invoke-WebRequest -UseBasicParsing -Uri "$BaseUrl/SHA256SUMS" -OutFile $sums
    $lines = Get-Content $sums
    if (-not $Version) {
        $m = $lines | Select-String -Pattern "  plughost_(.+)_windows_${arch}\.zip$" | Select-Object -First 1
        if (-not $m) { throw "no windows/$arch archive listed in $BaseUrl/SHA256SUMS" }
        $Version = $m.Matches[0].Groups[1].Value
    }
    $Version = $Version.TrimStart('v')
    $name = "plughost_${Version}_windows_${arch}"
    $zip = Join-Path $tmp "$name.zip"
    Invoke-WebRequest -UseBasicParsing -Uri "$BaseUrl/$name.zip" -OutFile $zip

    $want = ($lines | Where-Object { ($_ -split '\s+')[1] -eq "$name.zip" } | Select-Object -First 1)
    if (-not $want) { throw "$name.zip is not listed in SHA256SUMS" }
    $want = ($want -split '\s+')[0].ToLower()
    $got = (Get-FileHash -Algorithm SHA256 -Path $zip).Hash.ToLower()
    if ($got -ne $want) { throw "checksum mismatch for ${name}.zip: got $got, SHA256SUMS says $want" }

    Expand-Archive -Path $zip -DestinationPath $tmp
    New-Item -ItemType Directory -Force -Path $Prefix | Out-Null
    $old = Join-Path $Prefix 'plugins'
    if (Test-Path $old) { Remove-Item -Recurse -Force $old }
    Copy-Item -Recurse -Force -Path (Join-Path $tmp "$name\*") -Destination $Prefix

    $userPath = [Environment]::GetEnvironmentVariable('Path', 'User')
    if (($userPath -split ';') -notcontains $Prefix) {
        [Environment]::SetEnvironmentVariable('Path', "$userPath;$Prefix", 'User')
        Write-Host "added $Prefix to your user PATH (open a new terminal to use it)"
    }
    Write-Host "installed plughost $Version in $Prefix (checksum verified)"
    Write-Host "tab completion: add  . '$Prefix\completions\plughost.ps1'  to your `$PROFILE"
    & (Join-Path $Prefix 'plughost.exe') version
} finally {
    Remove-Item -Recurse -Force $tmp
}
