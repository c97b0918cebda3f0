// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721URIStorage} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721URIStorage.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// @title IdentityRegistry (ERC-8004, January 2026 interface)
/// @notice Agents are ERC-721 tokens; `agentURI` is the token URI. The reserved metadata key
/// `agentWallet` is set to the owner on register, cleared on transfer, and can only be changed with
/// an EIP-712 (or ERC-1271) signature of the new wallet. Not upgradeable on the devnet.
contract IdentityRegistry is ERC721URIStorage, Ownable, EIP712 {
    struct MetadataEntry {
        string metadataKey;
        bytes metadataValue;
    }

    bytes32 private constant AGENT_WALLET_SET_TYPEHASH =
        keccak256("AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)");
    bytes32 private constant AGENT_WALLET_KEY_HASH = keccak256("agentWallet");
    string private constant AGENT_WALLET_KEY = "agentWallet";
    uint256 private constant MAX_DEADLINE_DELAY = 5 minutes;

    uint256 private _lastId;
    mapping(uint256 => mapping(string => bytes)) private _metadata;

    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);
    event MetadataSet(
        uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue
    );
    event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy);

    error ReservedKey();
    error NotAuthorized();
    error DeadlineExpired();
    error DeadlineTooFar();
    error InvalidWalletSignature();

    constructor() ERC721("AgentIdentity", "AGENT") Ownable(msg.sender) EIP712("ERC8004IdentityRegistry", "1") {}

    function getVersion() external pure returns (string memory) {
        return "2.0.0";
    }

    function register() external returns (uint256 agentId) {
        return _register("", new MetadataEntry[](0));
    }

    function register(string calldata agentURI) external returns (uint256 agentId) {
        return _register(agentURI, new MetadataEntry[](0));
    }

    function register(string calldata agentURI, MetadataEntry[] calldata metadata) external returns (uint256 agentId) {
        return _register(agentURI, metadata);
    }

    function setAgentURI(uint256 agentId, string calldata newURI) external {
        _checkAuth(agentId);
        _setTokenURI(agentId, newURI);
        emit URIUpdated(agentId, newURI, msg.sender);
    }

    function getMetadata(uint256 agentId, string memory metadataKey) external view returns (bytes memory) {
        return _metadata[agentId][metadataKey];
    }

    function setMetadata(uint256 agentId, string memory metadataKey, bytes memory metadataValue) external {
        _checkAuth(agentId);
        if (keccak256(bytes(metadataKey)) == AGENT_WALLET_KEY_HASH) revert ReservedKey();
        _setMetadata(agentId, metadataKey, metadataValue);
    }

    function getAgentWallet(uint256 agentId) external view returns (address) {
        bytes memory v = _metadata[agentId][AGENT_WALLET_KEY];
        return v.length == 20 ? address(bytes20(v)) : address(0);
    }

    /// @notice The new wallet proves control by signing AgentWalletSet(agentId, newWallet, owner,
    /// deadline) under the domain ("ERC8004IdentityRegistry", "1", chainId, this).
    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature) external {
        _checkAuth(agentId);
        if (block.timestamp > deadline) revert DeadlineExpired();
        if (deadline > block.timestamp + MAX_DEADLINE_DELAY) revert DeadlineTooFar();
        bytes32 digest = _hashTypedDataV4(
            keccak256(abi.encode(AGENT_WALLET_SET_TYPEHASH, agentId, newWallet, _ownerOf(agentId), deadline))
        );
        if (!SignatureChecker.isValidSignatureNow(newWallet, digest, signature)) revert InvalidWalletSignature();
        _setMetadata(agentId, AGENT_WALLET_KEY, abi.encodePacked(newWallet));
    }

    function unsetAgentWallet(uint256 agentId) external {
        _checkAuth(agentId);
        _setMetadata(agentId, AGENT_WALLET_KEY, "");
    }

    function _register(string memory agentURI, MetadataEntry[] memory metadata) internal returns (uint256 agentId) {
        agentId = _lastId++;
        _safeMint(msg.sender, agentId);
        if (bytes(agentURI).length > 0) _setTokenURI(agentId, agentURI);
        _setMetadata(agentId, AGENT_WALLET_KEY, abi.encodePacked(msg.sender));
        for (uint256 i = 0; i < metadata.length; i++) {
            if (keccak256(bytes(metadata[i].metadataKey)) == AGENT_WALLET_KEY_HASH) revert ReservedKey();
            _setMetadata(agentId, metadata[i].metadataKey, metadata[i].metadataValue);
        }
        emit Registered(agentId, agentURI, msg.sender);
    }

    function _setMetadata(uint256 agentId, string memory key, bytes memory value) internal {
        _metadata[agentId][key] = value;
        emit MetadataSet(agentId, key, key, value);
    }

    function _checkAuth(uint256 agentId) internal view {
        address o = _requireOwned(agentId);
        if (!_isAuthorized(o, msg.sender, agentId)) revert NotAuthorized();
    }

    /// @dev A transfer (not mint or burn) clears agentWallet: the new owner must re-verify it.
    function _update(address to, uint256 tokenId, address auth) internal override returns (address from) {
        from = super._update(to, tokenId, auth);
        if (from != address(0) && to != address(0) && _metadata[tokenId][AGENT_WALLET_KEY].length != 0) {
            _setMetadata(tokenId, AGENT_WALLET_KEY, "");
        }
    }
}
