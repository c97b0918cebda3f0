// SPDX-License-Identifier: MIT
pragma solidity ^0.8.28;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title ServiceRegistry
/// @notice Names the tokens launched through the service, so the indexer can follow exactly those
/// tokens (a Ponder factory on `ServiceTokenRegistered.token`) without subscribing to every token
/// of the launchpad. The launch saga registers a token AFTER creating it, with the address
/// TokenCreate named in the receipt and the block it was created in: the indexer reads the
/// token's logs from that block up to the registration itself (docs/indexer.md).
contract ServiceRegistry is Ownable {
    struct Entry {
        address pair;
        address creator;
        address treasury;
        uint256 agentId;
        uint64 createdBlock;
        uint64 registeredAt;
    }

    event ServiceTokenRegistered(
        address indexed token,
        address indexed pair,
        address indexed creator,
        address treasury,
        uint256 agentId,
        uint64 createdBlock
    );
    event RegistrarSet(address indexed registrar);

    error NotRegistrar();
    error AlreadyRegistered();
    error ZeroAddress();
    error NotCreatedYet();

    address public registrar;
    mapping(address token => Entry) public entries;
    uint256 public tokenCount;

    /// @param initialOwner Explicit, not msg.sender: deployed through the CREATE2 proxy, the sender
    /// is the proxy. The registrar is granted afterwards (setRegistrar), so the address depends on
    /// the owner alone (contracts/deploy/).
    constructor(address initialOwner) Ownable(initialOwner) {}

    function setRegistrar(address registrar_) external onlyOwner {
        registrar = registrar_;
        emit RegistrarSet(registrar_);
    }

    /// @param createdBlock The block of the token's TokenCreate: the indexer starts reading there.
    function registerToken(
        address token,
        address pair,
        address creator,
        address treasury,
        uint256 agentId,
        uint64 createdBlock
    ) external {
        if (msg.sender != registrar) revert NotRegistrar();
        if (token == address(0) || pair == address(0) || creator == address(0)) revert ZeroAddress();
        // A token registers once it exists: its code is there and its creation block is past.
        if (token.code.length == 0 || createdBlock > block.number) revert NotCreatedYet();
        if (entries[token].creator != address(0)) revert AlreadyRegistered();
        entries[token] = Entry(pair, creator, treasury, agentId, createdBlock, uint64(block.timestamp));
        tokenCount++;
        emit ServiceTokenRegistered(token, pair, creator, treasury, agentId, createdBlock);
    }

    function isRegistered(address token) external view returns (bool) {
        return entries[token].creator != address(0);
    }
}
